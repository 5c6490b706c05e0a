using System.Buffers.Binary;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

public class ReplicaConvergenceTests
{
    /// <summary>
    /// The primary commits through 16 WriteAsync callers (each operation bumps a counter and adds the item it numbers, so a
    /// snapshot holds items 0..counter-1 exactly); a shipping loop feeds the replica from ReadJournalEntries; readers on
    /// the replica check every snapshot holds whole transactions. In the end the replica holds every acknowledged operation
    /// and equals the primary.
    /// </summary>
    [Fact]
    public async Task A_replica_fed_by_a_shipping_loop_converges_and_readers_see_whole_transactions()
    {
        using var dir = new TestDirectory("replica-converge");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("replica"), keys: 1);
        await using var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary"))
        {
            JournalRetentionBytes = 256L << 20,
            InitialJournalFileBytes = 256 << 10,
            MaxJournalFileBytes = 1 << 20,
            FlushThresholdBytes = 1 << 20,
            MaxFlushDelay = TimeSpan.FromMilliseconds(50),
            SyncInterval = TimeSpan.FromMilliseconds(50),
        });
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(new StorageOptions(dir.File("replica")) { FlushThresholdBytes = 1 << 20 }));

        const int callers = 16, perCaller = 150;
        var acknowledged = new List<long>[callers];
        var writers = Enumerable.Range(0, callers).Select(c => Task.Run(async () =>
        {
            acknowledged[c] = [];
            for (int i = 0; i < perCaller; i++)
            {
                long item = await primary.WriteAsync(c * 100_000 + i, static (tx, tag) =>
                {
                    var counter = tx.CreateTree("counter");
                    long n = counter.TryGet("n"u8, out var value) ? BinaryPrimitives.ReadInt64BigEndian(value) : 0;
                    tx.CreateTree("items").Put(Bytes.Key(n), Bytes.Key(tag));
                    Span<byte> next = stackalloc byte[8];
                    BinaryPrimitives.WriteInt64BigEndian(next, n + 1);
                    counter.Put("n"u8, next);
                    return n;
                });
                acknowledged[c].Add(item);
            }
        })).ToArray();
        var allWritten = Task.WhenAll(writers);

        long snapshots = 0;
        using var stopReaders = new CancellationTokenSource();
        var readers = Enumerable.Range(0, 2).Select(_ => Task.Factory.StartNew(() =>
        {
            while (!stopReaders.IsCancellationRequested)
            {
                using var tx = replica.BeginRead();
                if (!tx.TryOpenTree("counter", out var counter))
                    continue;
                long n = BinaryPrimitives.ReadInt64BigEndian(counter.Get("n"u8));
                var items = tx.OpenTree("items");
                Assert.Equal(n, items.Count);
                Assert.True(items.TryGet(Bytes.Key(n - 1), out ReadOnlySpan<byte> _));
                Assert.False(items.TryGet(Bytes.Key(n), out ReadOnlySpan<byte> _));
                Interlocked.Increment(ref snapshots);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        // The shipping loop: read on from the replica's position, apply, acknowledge.
        long shipped = backupAt;
        while (true)
        {
            bool done = allWritten.IsCompleted;
            var entries = primary.ReadJournalEntries(shipped).ToList();
            if (entries.Count > 0)
            {
                Assert.Equal(entries.Count, replica.ApplyBatch(entries));
                shipped = entries[^1].TransactionId;
            }
            primary.AcknowledgeShipped(shipped);
            if (done && shipped == primary.LastCommittedTransactionId)
                break;
            await Task.Yield();
        }
        await allWritten;
        await stopReaders.CancelAsync();
        await Task.WhenAll(readers);

        Assert.Equal(primary.LastCommittedTransactionId, replica.LastAppliedTransactionId);
        Assert.Equal(ShippingFixtures.Dump(primary), ShippingFixtures.Dump(replica));
        using (var tx = replica.BeginRead())
        {
            var items = tx.OpenTree("items");
            Assert.Equal(callers * perCaller, items.Count);
            foreach (var item in acknowledged.SelectMany(a => a))
                Assert.True(items.TryGet(Bytes.Key(item), out ReadOnlySpan<byte> _), $"acknowledged item {item} is missing on the replica");
        }
        replica.Verify();
        Assert.True(snapshots > 0);
    }
}
