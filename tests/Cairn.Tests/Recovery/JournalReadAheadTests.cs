using System.Runtime.InteropServices;
using Cairn.Journal;
using Cairn.Pal;
using Cairn.Recovery;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Recovery;

/// <summary>
/// The replay's read-and-validate stage on its own thread: it must hand out exactly what reading the
/// journal through <see cref="JournalReadWindow"/> gives, in order, stop at the log's end, carry failures
/// of either kind to the caller, hold at most its depth of chunks, and stop without hanging.
/// </summary>
public sealed class JournalReadAheadTests : IDisposable
{
    private const int Chunk = 4 * JournalEntryHeader.Alignment; // a one-page entry is 3 blocks: entries straddle chunks

    private readonly TestDirectory _dir = new("read-ahead");
    private readonly JournalEntryFactory _entries = new(Guid.NewGuid());

    public void Dispose()
    {
        _entries.Dispose();
        _dir.Dispose();
    }

    /// <summary>A journal of <paramref name="count"/> one-page entries (transactions 1..count), zeros after them.</summary>
    private string WriteJournal(int count, int trailingZeroBlocks = 3, Action<int, byte[]>? edit = null)
    {
        string path = _dir.File($"{Guid.NewGuid():N}.journal");
        using var stream = File.Create(path);
        for (int i = 0; i < count; i++)
        {
            var entry = _entries.Build(i + 1, (100 + i, i));
            edit?.Invoke(i, entry);
            stream.Write(entry);
        }
        stream.Write(new byte[trailingZeroBlocks * JournalEntryHeader.Alignment]);
        return path;
    }

    [Fact]
    public unsafe void Hands_out_what_the_read_window_validates_in_journal_order_then_the_end_again_and_again()
    {
        string path = WriteJournal(40);
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly);
        using var window = new JournalReadWindow(readAhead: false);
        window.Reset(file);
        using var readAhead = new JournalReadAhead(depth: 2, chunkSize: Chunk);
        readAhead.Start(file, 0);

        long offset = 0;
        for (int i = 0; i < 40; i++)
        {
            var expected = window.Validate(offset, out byte* expectedEntry);
            var actual = readAhead.Next(out byte* entry, out bool recordsChecked, out var recordProblem);
            Assert.True(actual.IsValid, actual.ToString());
            Assert.Equal((expected.Offset, expected.EntrySize, expected.Header.TransactionId), (actual.Offset, actual.EntrySize, actual.Header.TransactionId));
            Assert.Equal(i + 1, actual.Header.TransactionId);
            Assert.True(recordsChecked);
            Assert.Null(recordProblem);
            Assert.True(new ReadOnlySpan<byte>(expectedEntry, (int)expected.EntrySize).SequenceEqual(new ReadOnlySpan<byte>(entry, (int)actual.EntrySize)));
            offset += actual.EntrySize;
        }
        for (int again = 0; again < 3; again++)
        {
            var end = readAhead.Next(out byte* none);
            Assert.Equal(JournalEntryProblem.Empty, end.Problem);
            Assert.Equal(offset, end.Offset);
            Assert.True(none == null);
        }
        Assert.Equal(window.FileSize, readAhead.FileSize);
    }

    [Fact]
    public unsafe void Damage_ends_the_stream_at_the_damaged_entry_with_what_the_window_reports()
    {
        string path = WriteJournal(12, edit: (i, entry) =>
        {
            if (i == 7)
                entry[JournalEntryHeader.Size + 50] ^= 0xFF; // payload byte: the hash no longer holds
        });
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly);
        using var readAhead = new JournalReadAhead(depth: 3, chunkSize: Chunk);
        readAhead.Start(file, 0);
        for (int i = 0; i < 7; i++)
            Assert.True(readAhead.Next(out _).IsValid);
        var damaged = readAhead.Next(out _);
        Assert.Equal(JournalEntryProblem.PayloadHashMismatch, damaged.Problem);
        Assert.Equal(7L * JournalEntryFactory.OnePageEntrySize, damaged.Offset);

        using var window = new JournalReadWindow(readAhead: false);
        window.Reset(file);
        Assert.Equal(window.Validate(damaged.Offset, out _).Reason, damaged.Reason);
    }

    [Fact]
    public unsafe void Entries_larger_than_a_chunk_are_read_whole_and_a_start_offset_is_honoured()
    {
        string path = WriteJournal(6);
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly);
        using var readAhead = new JournalReadAhead(depth: 2, chunkSize: JournalEntryHeader.Alignment);
        readAhead.Start(file, 2L * JournalEntryFactory.OnePageEntrySize);
        for (long transaction = 3; transaction <= 6; transaction++)
        {
            var validation = readAhead.Next(out _);
            Assert.True(validation.IsValid, validation.ToString());
            Assert.Equal(transaction, validation.Header.TransactionId);
        }
        Assert.Equal(JournalEntryProblem.Empty, readAhead.Next(out _).Problem);
    }

    [Fact]
    public unsafe void A_record_problem_found_ahead_travels_with_its_entry_for_the_caller_to_throw()
    {
        string path = WriteJournal(5, edit: (i, entry) =>
        {
            if (i != 3)
                return;
            // Fewer records than the payload holds: the header and hashes hold, the records do not.
            var header = MemoryMarshal.Read<JournalEntryHeader>(entry);
            header.PageCount = 0;
            MemoryMarshal.Write(entry, in header);
            JournalTestEntries.Reseal(entry);
        });
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly);
        using var readAhead = new JournalReadAhead(depth: 2, chunkSize: Chunk);
        readAhead.Start(file, 0);
        for (int i = 0; i < 3; i++)
        {
            readAhead.Next(out _, out _, out var fine);
            Assert.Null(fine);
        }
        var validation = readAhead.Next(out _, out bool recordsChecked, out var problem);
        Assert.True(validation.IsValid);
        Assert.True(recordsChecked);
        Assert.NotNull(problem);
        Assert.Equal(3L * JournalEntryFactory.OnePageEntrySize, problem.EntryOffset);
        Assert.Equal(4, problem.TransactionId);
        Assert.Contains("payload bytes follow the last of its 0 records", problem.Message, StringComparison.Ordinal);
        Assert.True(readAhead.Next(out _).IsValid); // the stream goes on: whether the entry counts is the caller's call
    }

    [Fact]
    public unsafe void A_read_failure_on_the_reader_thread_is_rethrown_by_next_naming_the_file_and_offset()
    {
        string path = WriteJournal(4);
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Direct);
        Assert.False(file.DirectIOFellBack, "test directories are on a real disk, which takes O_DIRECT");
        using var readAhead = new JournalReadAhead(depth: 2, chunkSize: Chunk);
        readAhead.Start(file, 100); // a direct read at a misaligned offset fails (EINVAL)
        var failure = Assert.ThrowsAny<Exception>(() => readAhead.Next(out _));
        Assert.Contains(path, failure.Message, StringComparison.Ordinal);
        Assert.Contains("100", failure.Message, StringComparison.Ordinal);
        // A failed reader stays failed, and stopping it does not hang.
        Assert.ThrowsAny<Exception>(() => readAhead.Next(out _));
        readAhead.Stop();
    }

    [Fact]
    public async Task The_reader_holds_at_most_its_depth_of_chunks_and_stops_while_waiting_for_room()
    {
        const int depth = 3;
        string path = WriteJournal(200); // 200 × 12 KiB: far more than three 16 KiB chunks
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly);
        var readAhead = new JournalReadAhead(depth, chunkSize: Chunk);
        readAhead.Start(file, 0);
        Assert.True(NextIsValid(readAhead)); // the caller now holds one chunk

        // Whatever the scheduling, the reader fills the other buffers and then can only wait for one.
        var spin = new SpinWait();
        while (readAhead.ChunksAhead < depth - 1)
        {
            spin.SpinOnce();
            await Task.Yield();
        }
        Assert.Equal(depth - 1, readAhead.ChunksAhead);
        Assert.Equal(depth * (long)Chunk, readAhead.BytesRead);

        // Blocked on back-pressure, it stops when asked; the guard only keeps a defect from hanging the run.
        await Task.Run(readAhead.Dispose).WaitAsync(TimeSpan.FromMinutes(2));
    }

    private static unsafe bool NextIsValid(JournalReadAhead readAhead) => readAhead.Next(out _).IsValid;

    [Fact]
    public unsafe void Starting_again_stops_the_previous_file_midway_and_reads_the_next_from_its_start()
    {
        string first = WriteJournal(50), second = WriteJournal(3);
        using var readAhead = new JournalReadAhead(depth: 2, chunkSize: Chunk);
        using (var file = PalFile.Open(first, PalOpenFlags.ReadOnly))
        {
            readAhead.Start(file, 0);
            Assert.Equal(1, readAhead.Next(out _).Header.TransactionId);
            readAhead.Stop();
        }
        using (var file = PalFile.Open(second, PalOpenFlags.ReadOnly))
        {
            readAhead.Start(file, 0);
            for (long transaction = 1; transaction <= 3; transaction++)
                Assert.Equal(transaction, readAhead.Next(out _).Header.TransactionId);
            Assert.Equal(JournalEntryProblem.Empty, readAhead.Next(out _).Problem);
        }
        Assert.Throws<InvalidOperationException>(() =>
        {
            readAhead.Stop();
            readAhead.Next(out _);
        });
    }
}
