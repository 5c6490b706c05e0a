using System.Runtime.InteropServices;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Recovery;

/// <summary>
/// The replay in two threads (<see cref="ReplayPipeline"/>) over journals of many entries, with small chunks
/// (<see cref="Small"/>) so that a journal of a few hundred KiB crosses many batches, fills the bound between the
/// threads, and has entries larger than a chunk: the pages rebuilt are those of one thread applying the journal in
/// order, and every end of the log is judged as before (a torn tail cut only after the replay, a corrupt entry or a
/// damage found by the scan past the end thrown naming journal and offset with nothing cut, an empty journal).
/// </summary>
public sealed unsafe class TwoThreadReplayTests
{
    // 16 KiB chunks, at most 64 KiB read ahead of the applier: a one-page entry is up to 12 KiB, a forty-page one over 320 KiB.
    private static readonly ReplayBuffers Small = new(16 * 1024, 64 * 1024);
    private const long FirstPage = 100;
    private const int Pages = 40;

    public static TheoryData<string> Buffers => ["small", "default"];

    [Theory]
    [MemberData(nameof(Buffers))]
    public void The_pages_rebuilt_are_those_of_one_thread_applying_every_entry_in_journal_order(string buffers)
    {
        using var scene = new RecoveryScene("replay-two-threads-pages");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        var entries = log.Build(300);
        scene.WriteJournal(1, entries[..150], size: SizeOf(entries[..150]) + 64 * 1024);
        long[] second = scene.WriteJournal(2, entries[150..], size: SizeOf(entries[150..]) + 1024 * 1024);

        var result = scene.Recover(buffers: buffers == "small" ? Small : null);

        Assert.Equal(300, result.TransactionsReplayed);
        Assert.Equal(new JournalPosition(2, second[^1] + entries[^1].Length), result.Position);
        AssertPagesAre(result, OneThread(entries));
        Assert.Null(result.TornTail);
    }

    [Fact]
    public void A_torn_tail_after_many_batches_is_cut_once_every_entry_before_it_is_applied()
    {
        using var scene = new RecoveryScene("replay-two-threads-torn");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        var entries = log.Build(101);
        long[] offsets = scene.WriteJournal(1, entries, size: SizeOf(entries) + 256 * 1024);
        FileDamage.FlipBits(scene.JournalPath(1), InPayload(offsets[100])); // the last entry, torn
        scene.WriteJournal(2, [], size: 64 * 1024);

        var result = scene.Recover(buffers: Small);

        Assert.Equal(100, result.LastTransactionId);
        Assert.Equal(new JournalPosition(1, offsets[100]), result.Position);
        AssertPagesAre(result, OneThread(entries[..100]));
        Assert.Equal(offsets[100], new FileInfo(scene.JournalPath(1)).Length);
        Assert.False(File.Exists(scene.JournalPath(2)));
    }

    [Fact]
    public void An_entry_with_a_corrupt_record_behind_valid_hashes_in_a_later_batch_is_thrown_naming_it_and_nothing_is_cut()
    {
        using var scene = new RecoveryScene("replay-two-threads-corrupt-record");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        var entries = log.Build(80);
        // Transaction 61: a good full page, then a diff whose op runs past its page, sealed with correct hashes.
        byte[] bad = [.. JournalTestEntries.Record(FirstPage, 1, PageRecordEncoding.Full, JournalEntryFactory.PageImage(FirstPage, 9)),
            .. JournalTestEntries.Record(FirstPage + 1, 1, PageRecordEncoding.Diff, [0xFF, 0x3F, 0x04, 9, 9])];
        entries[60] = log.Seal(bad, records: 2, transactionId: 61);
        long[] offsets = scene.WriteJournal(1, entries, size: SizeOf(entries) + 64 * 1024);
        long length = new FileInfo(scene.JournalPath(1)).Length;

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover(buffers: Small));

        Assert.Equal(scene.JournalPath(1), error.FilePath);
        Assert.Equal(offsets[60], error.EntryOffset);
        Assert.Equal(61, error.TransactionId);
        Assert.Contains($"page {FirstPage + 1}", error.Message);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
    }

    /// <summary>
    /// Applied by the applier before the reader checked it, the corrupt entry's first record (a full page 100) would be
    /// in the cache when its second record's page finds the cache over budget, and the spill would write it to the data
    /// file before the bad diff was met. Checked whole by the reader, none of it is applied, and nothing is spilled.
    /// </summary>
    [Fact]
    public void A_corrupt_entry_is_applied_nowhere_not_even_the_records_before_its_bad_one()
    {
        using var scene = new RecoveryScene("replay-two-threads-applied-nowhere");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        byte[] first = JournalTestEntries.Record(FirstPage, 1, PageRecordEncoding.Full, JournalEntryFactory.PageImage(FirstPage, 1));
        byte[] bad = [.. JournalTestEntries.Record(FirstPage, 1, PageRecordEncoding.Full, JournalEntryFactory.PageImage(FirstPage, 2)),
            .. JournalTestEntries.Record(FirstPage + 1, 1, PageRecordEncoding.Diff, [0xFF, 0x3F, 0x04, 9, 9])];
        long[] offsets = scene.WriteJournal(1, [log.Seal(first, records: 1, transactionId: 1), log.Seal(bad, records: 2, transactionId: 2)],
            size: 64 * 1024);
        long pagesBefore = scene.DataFile.PageCount;
        long dataBytes = new FileInfo(scene.DataFile.FilePath).Length;

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover(budgetBytes: StorageConstants.PageSize, buffers: Small));

        Assert.Equal(offsets[1], error.EntryOffset);
        Assert.Equal(2, error.TransactionId);
        Assert.Equal(pagesBefore, scene.DataFile.PageCount);
        Assert.Equal(dataBytes, new FileInfo(scene.DataFile.FilePath).Length);
    }

    [Fact]
    public void A_valid_entry_found_only_by_the_scan_far_past_the_log_s_end_is_damage_and_nothing_is_cut()
    {
        using var scene = new RecoveryScene("replay-two-threads-scan");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        var entries = log.Build(90);
        long end = SizeOf(entries[..80]);
        // Transactions 1-80, then zeros (the log's end), and transaction 81's entry 1 MiB further on: written, then
        // a block of zeros over the place the writer should have put it.
        scene.WriteJournal(1, entries[..80], size: end + 2 * 1024 * 1024);
        long stray = end + 1024 * 1024;
        using (var file = new FileStream(scene.JournalPath(1), FileMode.Open, FileAccess.Write))
        {
            file.Position = stray;
            file.Write(entries[80]);
        }
        long length = new FileInfo(scene.JournalPath(1)).Length;

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover(buffers: Small));

        Assert.Equal(scene.JournalPath(1), error.FilePath);
        Assert.Equal(end, error.EntryOffset);
        Assert.Contains($"valid entry of transaction 81 follows in '{scene.JournalPath(1)}' at offset {stray}", error.Message);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
    }

    [Fact]
    public void A_damaged_entry_with_valid_ones_after_it_is_damage_whose_earlier_entries_do_not_change_the_verdict()
    {
        using var scene = new RecoveryScene("replay-two-threads-damage");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        var entries = log.Build(120);
        long[] offsets = scene.WriteJournal(1, entries, size: SizeOf(entries) + 64 * 1024);
        FileDamage.FlipBits(scene.JournalPath(1), InPayload(offsets[70]));
        long length = new FileInfo(scene.JournalPath(1)).Length;

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover(buffers: Small));

        Assert.Equal(offsets[70], error.EntryOffset);
        Assert.Equal(71, error.TransactionId);
        Assert.Contains("valid entry of transaction 72 follows", error.Message);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1024 * 1024)]
    public void An_empty_journal_replays_nothing_and_changes_nothing(long size)
    {
        using var scene = new RecoveryScene("replay-two-threads-empty");
        scene.WriteJournal(1, [], size);

        var result = scene.Recover(buffers: Small);

        Assert.Equal(0, result.TransactionsReplayed);
        Assert.Empty(result.Pages);
        Assert.Null(result.TornTail);
        Assert.Equal(size, new FileInfo(scene.JournalPath(1)).Length);
        Assert.Equal([1L], result.Journals.Retained.Select(j => j.Sequence));
    }

    [Fact]
    public void A_failure_of_the_applier_reaches_the_open_and_wins_over_a_later_one_of_the_reader()
    {
        using var scene = new RecoveryScene("replay-two-threads-applier-fails");
        using var log = new ScriptedLog(scene.Header.EnvironmentId);
        var entries = log.Build(120);
        long[] offsets = scene.WriteJournal(1, entries, size: SizeOf(entries) + 64 * 1024);
        FileDamage.FlipBits(scene.JournalPath(1), InPayload(offsets[100])); // damage: valid entries follow
        long length = new FileInfo(scene.JournalPath(1)).Length;

        // Read-only with room for four pages: the applier refuses within the first entries, long before the reader's
        // damage at transaction 101; one thread would have thrown the applier's refusal, so two must too. The default
        // buffers let the reader run far enough ahead to meet its damage first (small ones would stop it at the bound).
        Assert.Throws<ReadOnlyOpenRefusedException>(() => scene.Recover(readOnly: true, budgetBytes: 4 * StorageConstants.PageSize));
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);

        // Writable, it spills instead, and the reader's damage is the failure.
        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover(budgetBytes: 4 * StorageConstants.PageSize, buffers: Small));
        Assert.Equal(offsets[100], error.EntryOffset);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
    }

    // A byte of the first page record's header: every entry has one, however small its payload.
    private static long InPayload(long entryOffset) => entryOffset + JournalEntryHeader.Size + 4;

    private static long SizeOf(byte[][] entries) => entries.Sum(e => (long)e.Length);

    /// <summary>The pages one thread rebuilds applying <paramref name="entries"/> in order (the engine's reader, no pipeline).</summary>
    private static Dictionary<long, byte[]> OneThread(byte[][] entries)
    {
        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();
        foreach (var entry in entries)
            JournalTestEntries.Apply(reader, entry, target);
        return target.Runs.ToDictionary(r => r.Key, r => r.Value.Span.ToArray());
    }

    private static void AssertPagesAre(RecoveryResult result, Dictionary<long, byte[]> expected)
    {
        Assert.Equal(expected.Keys.Order(), result.Pages.Select(p => p.PageNumber));
        foreach (var (page, bytes) in expected)
            Assert.True(bytes.AsSpan().SequenceEqual(JournalRecoveryTests.PageBytes(result, page)), $"page {page} differs");
    }

    /// <summary>
    /// A history of transactions over <see cref="Pages"/> pages: each writes a few of them, a page's first write a new
    /// page and later ones a few changed bytes (diff records over the version before), and every 25th transaction all
    /// of them (an entry larger than a small chunk). Every version is stamped, as recovery validates what it rebuilds.
    /// </summary>
    private sealed class ScriptedLog(Guid environmentId) : IDisposable
    {
        private readonly JournalEntryWriter _writer = new();
        private readonly JournalBuffer _buffer = new();
        private readonly Dictionary<long, byte[]> _current = [];
        private readonly Random _random = new(43);

        public byte[][] Build(int transactions)
        {
            var entries = new byte[transactions][];
            for (int tx = 1; tx <= transactions; tx++)
            {
                var pages = tx % 25 == 0
                    ? Enumerable.Range(0, Pages).Select(p => FirstPage + p)
                    : Enumerable.Range(0, 1 + _random.Next(3)).Select(_ => FirstPage + _random.Next(Pages)).Distinct();
                var changes = pages.Select(Change).ToList();
                entries[tx - 1] = JournalTestEntries.Build(_writer, _buffer, tx, environmentId, changes, nextPageNumber: 1000);
            }
            return entries;
        }

        private PageChange Change(long page)
        {
            _current.TryGetValue(page, out var previous);
            byte[] next;
            if (previous is null)
                next = JournalEntryFactory.PageImage(page, _random.Next());
            else
            {
                next = (byte[])previous.Clone();
                for (int k = 0; k < 8; k++)
                    next[PageHeader.Size + _random.Next(StorageConstants.PageSize - PageHeader.Size)] = (byte)_random.Next(256);
                fixed (byte* p = next)
                    PageChecksum.Stamp(p, page, 1);
            }
            _current[page] = next;
            return new PageChange(page, 1, previous, next);
        }

        /// <summary>An entry of this environment with <paramref name="payload"/> as its records and correct hashes.</summary>
        public byte[] Seal(byte[] payload, int records, long transactionId)
        {
            var entry = JournalTestEntries.Seal(payload, records, transactionId, nextPageNumber: 1000);
            var header = MemoryMarshal.Read<JournalEntryHeader>(entry);
            header.EnvironmentId = environmentId;
            MemoryMarshal.Write(entry, in header);
            JournalTestEntries.Reseal(entry);
            return entry;
        }

        public void Dispose()
        {
            _writer.Dispose();
            _buffer.Dispose();
        }
    }
}
