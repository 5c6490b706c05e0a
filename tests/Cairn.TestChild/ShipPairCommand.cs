using System.Buffers.Binary;

namespace Cairn.TestChild;

/// <summary>
/// <c>ship-pair PRIMARY REPLICA CYCLE</c>: the process a replica crash test kills. It opens the primary (journal retention
/// on) and the replica, commits through 16 WriteAsync callers (each operation puts key (CYCLE, caller, n) into tree "items"
/// and prints <c>ack KEY</c> once its task completes, i.e. once it is durable) and, on another thread, ships: reads the
/// primary's entries after the replica's position, applies them, acknowledges them and prints <c>applied TX</c>. It runs
/// until killed (or standard input closes).
/// </summary>
public static class ShipPairCommand
{
    public const int Callers = 16;

    public static int Run(string primaryDirectory, string replicaDirectory, int cycle)
    {
        var primary = StorageEnvironment.Open(new StorageOptions(primaryDirectory)
        {
            JournalRetentionBytes = 1L << 30,
            InitialJournalSize = 256 << 10,
            MaxJournalSize = 1 << 20,
            MaxFlushDelay = TimeSpan.FromMilliseconds(20),
            SyncInterval = TimeSpan.FromMilliseconds(20),
        });
        var replica = StorageEnvironment.OpenReplica(new ReplicaOptions(new StorageOptions(replicaDirectory)
        {
            MaxFlushDelay = TimeSpan.FromMilliseconds(20),
            SyncInterval = TimeSpan.FromMilliseconds(20),
        }));
        var output = TextWriter.Synchronized(Console.Out);
        output.WriteLine($"opened {primary.LastCommittedTransactionId} {replica.LastAppliedTransactionId}");
        output.Flush();
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            for (long n = 0; !stop.IsCancellationRequested; n++)
            {
                long key = Key(cycle, caller, n);
                await primary.WriteAsync(key, static (tx, k) =>
                {
                    Span<byte> bytes = stackalloc byte[8];
                    BinaryPrimitives.WriteInt64BigEndian(bytes, k);
                    tx.CreateTree("items").Put(bytes, bytes);
                });
                output.WriteLine($"ack {key}");
                output.Flush();
            }
        })).ToArray();
        var shipper = Task.Factory.StartNew(() =>
        {
            long shipped = replica.LastAppliedTransactionId;
            while (!stop.IsCancellationRequested)
            {
                var entries = primary.ReadJournalEntries(shipped).ToList();
                if (entries.Count > 0)
                {
                    replica.ApplyBatch(entries);
                    shipped = entries[^1].TransactionId;
                    output.WriteLine($"applied {shipped}");
                    output.Flush();
                }
                primary.AcknowledgeShipped(shipped);
                Thread.Sleep(1);
            }
        }, TaskCreationOptions.LongRunning);
        Console.In.ReadToEnd();
        stop.Cancel();
        Task.WaitAll([.. writers, shipper]);
        replica.Dispose();
        primary.Dispose();
        return 0;
    }

    /// <summary>The key of operation <paramref name="n"/> of <paramref name="caller"/> in <paramref name="cycle"/>: unique across a test.</summary>
    public static long Key(int cycle, int caller, long n) => ((long)cycle << 48) | ((long)caller << 40) | n;
}
