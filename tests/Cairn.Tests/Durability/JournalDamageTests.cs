using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// Damaged journals and headers after a crash: a torn or garbage tail recovers everything before it
/// (and says so in the log); damage in the middle of the log, a missing journal or a journal of another
/// environment is a clear exception naming the file and offset, never a hang, a crash or a silent loss.
/// </summary>
public class JournalDamageTests
{
    private const int TornTailEvent = 1103;

    [Fact]
    public void Truncating_the_journal_at_every_4_KiB_boundary_of_its_last_entries_recovers_the_complete_ones()
    {
        using var dir = new TestDirectory("damage-truncate");
        var crashed = CrashedEnvironment.Create(Path.Combine(dir.Path, "original"), transactions: 40);
        var lastJournal = crashed.Entries[^1].JournalPath;
        var tail = crashed.Entries.Where(e => e.JournalPath == lastJournal).TakeLast(3).ToList();
        long end = tail[^1].Offset + tail[^1].Size;
        int cases = 0;
        for (long cut = tail[0].Offset; cut <= end; cut += 4096)
        {
            var copy = crashed.CopyTo(Path.Combine(dir.Path, $"cut-{cut}"));
            string journal = Path.Combine(copy.JournalDirectory, Path.GetFileName(lastJournal));
            using (var file = File.Open(journal, FileMode.Open))
                file.SetLength(cut);
            // Complete entries before the cut survive; the one it cuts through does not.
            long expected = crashed.Entries.Where(e => e.JournalPath != lastJournal || e.Offset + e.Size <= cut).Max(e => e.TransactionId);
            bool atBoundary = crashed.Entries.Any(e => e.JournalPath == lastJournal && e.Offset + e.Size == cut) || cut == tail[0].Offset;
            var log = new CapturingLoggerFactory();
            using (var env = copy.Open(log))
            {
                CrashedEnvironment.AssertHoldsExactly(env, expected);
                Assert.Equal(!atBoundary, log.WithEventId(TornTailEvent).Any());
            }
            cases++;
        }
        Assert.True(cases >= 6, $"only {cases} cut points");
    }

    [Fact]
    public void Garbage_after_the_last_entry_is_a_torn_tail_that_is_cut_off()
    {
        using var dir = new TestDirectory("damage-garbage-tail");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 12);
        var last = crashed.Entries[^1];
        long garbageAt = last.Offset + last.Size;
        using (var file = File.Open(last.JournalPath, FileMode.Open))
        {
            file.Position = garbageAt;
            file.Write(Bytes.Value(99, 10000));
        }
        var log = new CapturingLoggerFactory();
        using (var env = crashed.Open(log))
        {
            CrashedEnvironment.AssertHoldsExactly(env, 12);
            var warning = Assert.Single(log.WithEventId(TornTailEvent));
            Assert.Contains(last.JournalPath, warning.Message);
            Assert.Contains($"offset {garbageAt}", warning.Message);
            Assert.Equal(garbageAt, new FileInfo(last.JournalPath).Length);
        }
    }

    [Fact]
    public void Stale_bytes_after_the_last_entry_of_a_journal_the_log_moved_on_from_are_not_damage()
    {
        // What a recycled journal looks like when the writer switched to the next file because an entry did
        // not fit: its previous life's bytes after the last entry, then the log continues in the next journal.
        using var dir = new TestDirectory("damage-switched-tail");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 40);
        var journals = crashed.JournalFiles;
        Assert.True(journals.Length >= 3);
        var lastOfFirst = crashed.Entries.Last(e => e.JournalPath == journals[0]);
        long end = lastOfFirst.Offset + lastOfFirst.Size;
        long length = new FileInfo(journals[0]).Length;
        Assert.True(length > end, "the first journal has room left after its last entry");
        using (var file = File.Open(journals[0], FileMode.Open))
        {
            file.Position = end;
            file.Write(Bytes.Value(3, (int)(length - end)));
        }
        var log = new CapturingLoggerFactory();
        using var env = crashed.Open(log);
        CrashedEnvironment.AssertHoldsExactly(env, 40);
        Assert.Empty(log.WithEventId(TornTailEvent));
    }

    [Fact]
    public void A_torn_last_entry_loses_only_that_transaction()
    {
        using var dir = new TestDirectory("damage-torn-entry");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 12);
        var last = crashed.Entries[^1];
        Assert.True(last.Size >= 8192, "the entry spans several blocks");
        // The second 4 KiB block never made it: it still holds the zeros of the pre-zeroed journal.
        using (var file = File.Open(last.JournalPath, FileMode.Open))
        {
            file.Position = last.Offset + 4096;
            file.Write(new byte[4096]);
        }
        var log = new CapturingLoggerFactory();
        using var env = crashed.Open(log);
        CrashedEnvironment.AssertHoldsExactly(env, 11);
        Assert.Contains("payload hash mismatch", Assert.Single(log.WithEventId(TornTailEvent)).Message);
    }

    [Fact]
    public void A_flipped_bit_in_the_middle_of_the_log_is_corruption_naming_the_journal_and_offset()
    {
        using var dir = new TestDirectory("damage-flip");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 40);
        // In the middle of the entries of one journal, with valid entries after it.
        var victim = crashed.Entries[crashed.Entries.Count / 2];
        FlipBit(victim.JournalPath, victim.Offset + 300);
        var error = Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
        Assert.Equal(victim.JournalPath, error.FilePath);
        Assert.Equal(victim.Offset, error.EntryOffset);
        Assert.Contains("damaged in the middle", error.Message);
        Assert.Contains(victim.JournalPath, error.Message);
        // Nothing was changed: the same damage is found again.
        Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
    }

    [Fact]
    public void A_flipped_bit_in_an_entry_header_before_the_last_entry_is_corruption_too()
    {
        using var dir = new TestDirectory("damage-flip-header");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 12);
        var victim = crashed.Entries[^2];
        FlipBit(victim.JournalPath, victim.Offset + 20); // inside the transaction id
        var error = Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
        Assert.Equal(victim.Offset, error.EntryOffset);
        Assert.Contains("header checksum mismatch", error.Message);
    }

    [Fact]
    public void A_zeroed_block_hiding_later_entries_is_corruption_not_the_end_of_the_log()
    {
        using var dir = new TestDirectory("damage-zeroed");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 40);
        var inLastJournal = crashed.Entries.Where(e => e.JournalPath == crashed.Entries[^1].JournalPath).ToList();
        Assert.True(inLastJournal.Count >= 3, $"the last journal holds {inLastJournal.Count} entries");
        var victim = inLastJournal[0];
        using (var file = File.Open(victim.JournalPath, FileMode.Open))
        {
            file.Position = victim.Offset;
            file.Write(new byte[4096]);
        }
        var error = Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
        Assert.Equal(victim.Offset, error.EntryOffset);
        Assert.Equal(victim.JournalPath, error.FilePath);
    }

    [Fact]
    public void A_missing_middle_journal_is_a_clear_error()
    {
        using var dir = new TestDirectory("damage-missing");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 60);
        var journals = crashed.JournalFiles;
        Assert.True(journals.Length >= 3, $"expected at least three journals, found {journals.Length}");
        var missing = journals[journals.Length / 2];
        long firstMissing = crashed.Entries.First(e => e.JournalPath == missing).TransactionId;
        File.Delete(missing);
        var error = Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
        Assert.Contains($"transaction {firstMissing} is missing", error.Message);
        Assert.Equal(journals[journals.Length / 2 + 1], error.FilePath);
    }

    [Fact]
    public void A_journal_from_another_environment_is_refused()
    {
        using var dir = new TestDirectory("damage-foreign");
        var mine = CrashedEnvironment.Create(Path.Combine(dir.Path, "mine"), transactions: 5);
        var other = CrashedEnvironment.Create(Path.Combine(dir.Path, "other"), transactions: 5);
        // The other environment's journal, under the name of this one's journal.
        var target = mine.JournalFiles[0];
        File.Copy(other.JournalFiles[0], target, overwrite: true);
        var error = Assert.Throws<JournalCorruptionException>(() => mine.Open().Dispose());
        Assert.Equal(target, error.FilePath);
        Assert.Equal(0, error.EntryOffset);
        Assert.Contains("another environment", error.Message);
    }

    [Fact]
    public void A_journal_of_another_environment_added_after_the_log_is_refused()
    {
        using var dir = new TestDirectory("damage-foreign-extra");
        var mine = CrashedEnvironment.Create(Path.Combine(dir.Path, "mine"), transactions: 5);
        var other = CrashedEnvironment.Create(Path.Combine(dir.Path, "other"), transactions: 7);
        string extra = Path.Combine(mine.JournalDirectory, JournalFileName.For(999));
        File.Copy(other.JournalFiles[0], extra);
        var error = Assert.Throws<JournalCorruptionException>(() => mine.Open().Dispose());
        Assert.Equal(extra, error.FilePath);
    }

    [Fact]
    public void One_corrupt_header_copy_after_a_crash_is_repaired_and_the_journals_replayed()
    {
        using var dir = new TestDirectory("damage-header-one");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 20);
        string dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        FlipBit(dataFile, 40);
        using (var env = crashed.Open())
            CrashedEnvironment.AssertHoldsExactly(env, 20);
        FlipBit(dataFile, StorageConstants.PageSize + 40);
        using (var env = crashed.Open())
            CrashedEnvironment.AssertHoldsExactly(env, 20);
    }

    [Fact]
    public void Both_header_copies_corrupt_after_a_crash_is_a_clear_error()
    {
        using var dir = new TestDirectory("damage-header-both");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 5);
        string dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        FlipBit(dataFile, 40);
        FlipBit(dataFile, StorageConstants.PageSize + 40);
        var error = Assert.Throws<StorageFormatException>(() => crashed.Open().Dispose());
        Assert.Equal(dataFile, error.FilePath);
    }

    [Fact]
    public void A_journal_that_is_not_a_journal_at_all_is_corruption_when_entries_follow_it()
    {
        using var dir = new TestDirectory("damage-not-a-journal");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 60);
        var journals = crashed.JournalFiles;
        Assert.True(journals.Length >= 3);
        File.WriteAllBytes(journals[1], Bytes.Value(5, (int)new FileInfo(journals[1]).Length));
        var error = Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
        Assert.Equal(journals[1], error.FilePath);
        Assert.Equal(0, error.EntryOffset);
    }

    /// <summary>
    /// Entries of format version 1 (XXH64 hashes, written by an earlier Cairn) hold their own version's checksums:
    /// no torn write makes that, so recovery refuses the journal as it is instead of cutting it off as a torn
    /// tail (which would drop every transaction in it and delete the journals after it).
    /// </summary>
    [Fact]
    public void A_journal_of_format_version_1_is_refused_not_cut_off()
    {
        using var dir = new TestDirectory("damage-format-version-1");
        var crashed = CrashedEnvironment.Create(dir.Path, transactions: 20);
        foreach (var journal in crashed.JournalFiles)
        {
            byte[] bytes = File.ReadAllBytes(journal);
            foreach (var entry in crashed.Entries.Where(e => e.JournalPath == journal))
                JournalTestEntries.ToFormatVersion1(bytes.AsSpan((int)entry.Offset, (int)entry.Size));
            File.WriteAllBytes(journal, bytes);
        }
        var before = crashed.JournalFiles.ToDictionary(path => path, File.ReadAllBytes);

        var error = Assert.Throws<JournalCorruptionException>(() => crashed.Open().Dispose());
        Assert.Equal(crashed.Entries[0].JournalPath, error.FilePath);
        Assert.Equal(crashed.Entries[0].Offset, error.EntryOffset);
        Assert.Equal(1, error.TransactionId);
        Assert.Contains("format version 1 is not supported", error.Message);
        Assert.Equal(before.Keys, crashed.JournalFiles);
        foreach (var (path, bytes) in before)
            Assert.True(bytes.AsSpan().SequenceEqual(File.ReadAllBytes(path)), $"{path} was changed");
    }

    private static void FlipBit(string path, long offset) => FileDamage.FlipBits(path, offset, 0x08);
}
