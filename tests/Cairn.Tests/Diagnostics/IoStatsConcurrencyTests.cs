using System.Collections.Concurrent;
using Cairn.Diagnostics;
using Xunit.Abstractions;

namespace Cairn.Tests.Diagnostics;

/// <summary>
/// Four writers against the ring at once, with a reader snapshotting without pause. Every field of
/// a record is derived from one key (writer, index) and the writer is identified by its file path's
/// reference, so a record assembled from two writes fails a cross-check. No sleeps: the threads run
/// flat out, and where a minimum overlap matters the writers keep going until the reader reports it.
/// </summary>
public class IoStatsConcurrencyTests(ITestOutputHelper output)
{
    private const int Writers = 4;
    private const int MinimumRecordsPerWriter = 100_000;

    // One string object per writer: the ring stores references, so identity names the writer.
    private static readonly string[] WriterFiles = [.. Enumerable.Range(0, Writers).Select(w => new string($"/env/writer-{w}.data"))];

    /// <summary>
    /// The reader's side. Capacity 1024 with writers flat out: the reader's slots are rewritten
    /// under it all the time. Capacity 16 with a short pause between records (a flat-out lap of 16
    /// is shorter than one snapshot, so a reader would almost never get a record): writers and the
    /// reader meet on the same few slots constantly.
    /// </summary>
    [Theory]
    [InlineData(16, 5, 20_000)]
    [InlineData(16, 20, 20_000)]
    [InlineData(1024, 0, 100_000)]
    public void A_reader_never_sees_a_torn_or_misordered_record(int capacity, int pauseBetweenRecords, int minimumRecordsReadWhileWriting)
    {
        const int minimumSnapshotsWhileWriting = 100;
        // Only so that a reader that can never read a record fails the test instead of hanging it.
        const int maximumSnapshotsWhileWriting = 200_000;

        var stats = new IoStats(capacity);
        var recordedByWriter = new long[Writers];
        int writersRunning = Writers;
        bool stopWriting = false;
        long snapshots = 0, snapshotsWhileWriting = 0, recordsRead = 0, recordsReadWhileWriting = 0;

        RunConcurrently(
            writer: w =>
            {
                int i = 0;
                for (; i < MinimumRecordsPerWriter || !Volatile.Read(ref stopWriting); i++)
                {
                    Record(stats, w, i);
                    if (pauseBetweenRecords > 0)
                        Thread.SpinWait(pauseBetweenRecords);
                }
                recordedByWriter[w] = i;
                Interlocked.Decrement(ref writersRunning);
            },
            reader: () =>
            {
                try
                {
                    // At least one snapshot even if the writers finish first; then until they do.
                    do
                    {
                        long recordedBefore = stats.TotalRecorded;
                        var snapshot = stats.Snapshot();
                        int count = CheckSnapshot(stats, snapshot, recordedBefore, stats.TotalRecorded);
                        snapshots++;
                        recordsRead += count;
                        // Counted only if no writer had stopped by the time the snapshot was checked.
                        if (Volatile.Read(ref writersRunning) == Writers)
                        {
                            snapshotsWhileWriting++;
                            recordsReadWhileWriting += count;
                            if (snapshotsWhileWriting >= minimumSnapshotsWhileWriting
                                && (recordsReadWhileWriting >= minimumRecordsReadWhileWriting || snapshotsWhileWriting >= maximumSnapshotsWhileWriting))
                                Volatile.Write(ref stopWriting, true);
                        }
                    }
                    while (Volatile.Read(ref writersRunning) > 0);
                }
                finally
                {
                    // Also when a check failed: the writers must not wait for a reader that is gone.
                    Volatile.Write(ref stopWriting, true);
                }
            });

        long total = recordedByWriter.Sum();
        Assert.All(recordedByWriter, n => Assert.True(n >= MinimumRecordsPerWriter));
        Assert.Equal(total, stats.TotalRecorded);
        Assert.True(snapshotsWhileWriting >= minimumSnapshotsWhileWriting);
        Assert.True(recordsReadWhileWriting >= minimumRecordsReadWhileWriting,
                    $"{snapshotsWhileWriting:N0} snapshots during the writes returned only {recordsReadWhileWriting:N0} records");

        var final = stats.Snapshot();
        CheckSnapshot(stats, final, total, total);
        // Quiet: every slot of the last lap holds its record unless that record was dropped.
        Assert.InRange(final.Length, capacity - stats.Dropped, capacity);
        Assert.All(final, o => Assert.InRange(o.Sequence, total - capacity, total - 1));
        output.WriteLine($"capacity {capacity}, pause {pauseBetweenRecords}: {total:N0} recorded, {stats.Dropped:N0} dropped; "
                         + $"{snapshots:N0} snapshots holding {recordsRead:N0} records, of which {snapshotsWhileWriting:N0} "
                         + $"with every writer running, holding {recordsReadWhileWriting:N0}");
    }

    /// <summary>
    /// The writers' side, at capacity 16 with no pause, so writers lap each other and collide on
    /// slots. The writers run <see cref="IoStats.Record"/>'s three steps themselves to learn which
    /// sequence each record got and whether it was dropped; afterwards every slot must hold exactly
    /// the newest record of its sequences that was not dropped, and <see cref="IoStats.Dropped"/>
    /// must equal the drops the writers saw.
    /// </summary>
    [Fact]
    public void Writers_lapping_each_other_leave_each_slot_with_its_newest_surviving_record()
    {
        const int capacity = 16;
        var stats = new IoStats(capacity);
        var sequences = new long[Writers][];
        var dropped = new bool[Writers][];
        int writersRunning = Writers;
        long recordsRead = 0;

        RunConcurrently(
            writer: w =>
            {
                sequences[w] = new long[MinimumRecordsPerWriter];
                dropped[w] = new bool[MinimumRecordsPerWriter];
                for (int i = 0; i < MinimumRecordsPerWriter; i++)
                {
                    long key = Key(w, i);
                    long sequence = stats.TakeSequence();
                    sequences[w][i] = sequence;
                    if (!stats.TryClaim(sequence))
                    {
                        dropped[w][i] = true;
                        continue;
                    }
                    stats.Complete(sequence, KindOf(i), StartOf(key), IoTime.Microseconds(MicrosecondsOf(key)), BytesOf(key),
                                   WriterFiles[w], key, ~key, TransactionCountOf(w, i), FailedOf(w, i));
                }
                Interlocked.Decrement(ref writersRunning);
            },
            reader: () =>
            {
                do
                {
                    long recordedBefore = stats.TotalRecorded;
                    recordsRead += CheckSnapshot(stats, stats.Snapshot(), recordedBefore, stats.TotalRecorded);
                }
                while (Volatile.Read(ref writersRunning) > 0);
            });

        const long total = (long)Writers * MinimumRecordsPerWriter;
        Assert.Equal(total, stats.TotalRecorded);
        // Each sequence went to exactly one record.
        Assert.Equal(Enumerable.Range(0, (int)total).Select(s => (long)s), sequences.SelectMany(s => s).Order());

        long droppedSeen = dropped.Sum(d => d.Count(x => x));
        Assert.Equal(droppedSeen, stats.Dropped);

        // Per slot, the highest sequence that was not dropped; the snapshot reports it if it is in the last lap.
        var newestSurvivor = new long[capacity];
        Array.Fill(newestSurvivor, -1);
        var keyOfSequence = new Dictionary<long, long>();
        for (int w = 0; w < Writers; w++)
        {
            for (int i = 0; i < MinimumRecordsPerWriter; i++)
            {
                if (dropped[w][i])
                    continue;
                long sequence = sequences[w][i];
                keyOfSequence[sequence] = Key(w, i);
                int slot = (int)(sequence % capacity);
                newestSurvivor[slot] = Math.Max(newestSurvivor[slot], sequence);
            }
        }
        var expected = newestSurvivor.Where(s => s >= total - capacity).Order().ToArray();

        var final = stats.Snapshot();
        CheckSnapshot(stats, final, total, total);
        Assert.Equal(expected, final.Select(o => o.Sequence));
        Assert.All(final, o => Assert.Equal(keyOfSequence[o.Sequence], o.FirstTransactionId));
        output.WriteLine($"{total:N0} recorded, {droppedSeen:N0} dropped; the reader checked {recordsRead:N0} records; final snapshot {final.Length}");
    }

    private static void RunConcurrently(Action<int> writer, Action reader)
    {
        using var start = new Barrier(Writers + 1);
        var failures = new ConcurrentQueue<Exception>();
        var threads = Enumerable.Range(0, Writers)
            .Select(w => new Thread(() => Run(() => writer(w))))
            .Append(new Thread(() => Run(reader)))
            .ToArray();
        foreach (var thread in threads)
            thread.Start();
        foreach (var thread in threads)
            thread.Join();
        if (!failures.IsEmpty)
            throw new AggregateException(failures);

        void Run(Action body)
        {
            try
            {
                start.SignalAndWait();
                body();
            }
            catch (Exception e)
            {
                failures.Enqueue(e);
            }
        }
    }

    private static void Record(IoStats stats, int writer, int index)
    {
        long key = Key(writer, index);
        stats.Record(KindOf(index), StartOf(key), StartOf(key) + IoTime.Microseconds(MicrosecondsOf(key)), BytesOf(key),
                     WriterFiles[writer], firstTransactionId: key, lastTransactionId: ~key, TransactionCountOf(writer, index), FailedOf(writer, index));
    }

    /// <summary>Checks one snapshot taken between two readings of <see cref="IoStats.TotalRecorded"/>.</summary>
    /// <returns>How many records it held.</returns>
    private static int CheckSnapshot(IoStats stats, IoOperation[] snapshot, long recordedBefore, long recordedAfter)
    {
        Assert.True(snapshot.Length <= stats.Capacity, $"{snapshot.Length} records from a ring of {stats.Capacity}");
        var lastIndexOfWriter = new int[Writers];
        Array.Fill(lastIndexOfWriter, -1);
        for (int k = 0; k < snapshot.Length; k++)
        {
            var operation = snapshot[k];
            if (k > 0)
                Assert.True(operation.Sequence > snapshot[k - 1].Sequence, $"sequence {operation.Sequence} after {snapshot[k - 1].Sequence}");
            // Nothing older than the window when the snapshot began, nothing not yet taken when it ended.
            Assert.InRange(operation.Sequence, recordedBefore - stats.Capacity, recordedAfter - 1);

            int writer = Array.FindIndex(WriterFiles, f => ReferenceEquals(f, operation.FilePath));
            Assert.True(writer >= 0, $"record {operation.Sequence} has a file path no writer used: {operation.FilePath}");
            long key = operation.FirstTransactionId;
            Assert.Equal(writer, (int)(key >> 32));
            int index = (int)(uint)key;
            var expected = new IoOperation
            {
                Sequence = operation.Sequence, Kind = KindOf(index), StartUtc = stats.ToUtc(StartOf(key)),
                Duration = TimeSpan.FromMicroseconds(MicrosecondsOf(key)), Bytes = BytesOf(key), FilePath = WriterFiles[writer],
                FirstTransactionId = key, LastTransactionId = ~key, TransactionCount = TransactionCountOf(writer, index),
                Failed = FailedOf(writer, index), EnvironmentCount = 1,
            };
            Assert.Equal(expected, operation);

            // A writer's records get increasing sequences, so in sequence order its indexes increase.
            Assert.True(index > lastIndexOfWriter[writer], $"writer {writer}: index {index} after {lastIndexOfWriter[writer]}");
            lastIndexOfWriter[writer] = index;
        }
        return snapshot.Length;
    }

    private static long Key(int writer, int index) => ((long)writer << 32) | (uint)index;

    private static IoOperationKind KindOf(int index) => (IoOperationKind)(1 + index % 3);

    private static long StartOf(long key) => IoTime.Origin + IoTime.Microseconds(key % 1_000_003);

    private static long MicrosecondsOf(long key) => key % 9_973;

    private static long BytesOf(long key) => key * 3;

    private static int TransactionCountOf(int writer, int index) => index % 1_000 + writer * 1_000;

    private static bool FailedOf(int writer, int index) => ((index + writer) & 1) == 1;
}
