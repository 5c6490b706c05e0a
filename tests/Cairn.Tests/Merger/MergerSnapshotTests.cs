using System.Buffers.Binary;
using System.Text;
using Cairn.Tests.Support;

namespace Cairn.Tests.Merger;

/// <summary>
/// Snapshot isolation through the merger while everything around it runs: callers' operations each add
/// an entry to their log and bump their counter in one operation; readers on other threads check in
/// every snapshot that each counter equals the number of that caller's log entries (a half-applied
/// operation, or a merged transaction seen before its predecessor, breaks it). Small thresholds keep
/// the flusher publishing states between the merger's prepared and published ones, and a small scratch
/// limit makes the merger stop and wait for it.
/// </summary>
public sealed class MergerSnapshotTests
{
    private const string TreeName = "s";
    private const int Callers = 16;
    private const int OpsPerCaller = 250;

    private static byte[] CountKey(int caller) => Encoding.ASCII.GetBytes($"count/{caller:D2}");

    private static byte[] LogPrefix(int caller) => Encoding.ASCII.GetBytes($"log/{caller:D2}/");

    private static byte[] LogKey(int caller, long n) => [.. LogPrefix(caller), .. Bytes.Key(n)];

    [Fact]
    public async Task Readers_never_see_a_merged_operation_half_applied_while_the_flusher_runs()
    {
        using var dir = new TestDirectory("merger-snapshots");
        var options = new StorageOptions(dir.Path)
        {
            FlushThresholdBytes = 64 << 10,
            MaxFlushDelay = TimeSpan.FromMilliseconds(1),
            SyncInterval = TimeSpan.FromMilliseconds(10),
            MaxScratchBytes = 512 << 10,
            MergerMaxTransactionBytes = 128 << 10,
            InitialJournalFileBytes = 64 << 10,
            MaxJournalFileBytes = 256 << 10,
        };
        var env = StorageEnvironment.Open(options);
        using var stop = new CancellationTokenSource();
        long snapshotsChecked = 0;
        var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                using var tx = env.BeginRead();
                if (!tx.TryOpenTree(TreeName, out var tree))
                    continue;
                for (int c = 0; c < Callers; c++)
                {
                    long count = tree.TryGet(CountKey(c), out var value) ? BinaryPrimitives.ReadInt64BigEndian(value) : 0;
                    long entries = 0;
                    using var cursor = tree.CreateCursor();
                    for (bool more = cursor.SeekPrefix(LogPrefix(c)); more; more = cursor.MoveNext())
                        entries++;
                    if (count != entries)
                        throw new InvalidOperationException($"snapshot at transaction {tx.TransactionId}: caller {c} counts {count} but has {entries} log entries");
                }
                Interlocked.Increment(ref snapshotsChecked);
            }
        })).ToArray();

        var writers = Enumerable.Range(0, Callers).Select(c => Task.Run(async () =>
        {
            for (int i = 0; i < OpsPerCaller; i++)
            {
                long counted = await env.WriteAsync((Caller: c, Size: i % 37 == 0 ? 9_000 : 40), static (tx, s) =>
                {
                    var tree = tx.CreateTree(TreeName);
                    long count = tree.TryGet(CountKey(s.Caller), out var value) ? BinaryPrimitives.ReadInt64BigEndian(value) : 0;
                    tree.Put(LogKey(s.Caller, count), Bytes.Value(s.Caller * 10_000 + count, s.Size));
                    tree.Put(CountKey(s.Caller), Bytes.Key(count + 1));
                    return count + 1;
                });
                Assert.Equal(i + 1, counted);
            }
        })).ToArray();

        try
        {
            await Task.WhenAll(writers).WaitAsync(TimeSpan.FromMinutes(3));
        }
        finally
        {
            stop.Cancel();
            await Task.WhenAll(readers).WaitAsync(TimeSpan.FromMinutes(1));
        }
        Assert.True(Interlocked.Read(ref snapshotsChecked) > 0, "no snapshot was checked");
        env.Verify();
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        using (var tx = reopened.BeginRead())
        {
            var tree = tx.OpenTree(TreeName);
            for (int c = 0; c < Callers; c++)
                Assert.Equal(Bytes.Key(OpsPerCaller), tree.Get(CountKey(c)));
            Assert.Equal(Callers * (OpsPerCaller + 1L), tree.Count);
        }
        reopened.Verify();
    }
}
