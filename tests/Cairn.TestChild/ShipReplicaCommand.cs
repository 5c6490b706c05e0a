using Cairn.Shipping;

namespace Cairn.TestChild;

/// <summary>
/// <c>ship-replica REPLICA SPOOL</c>: the replica of the replica crash test, which kills it. It opens the replica, prints
/// <c>opened TX</c> (its last applied transaction), then applies the spooled batches (<see cref="ShipSpool"/>) from
/// there on, each batch with one <see cref="StorageEnvironment.ApplyBatch"/>, printing <c>applied TX</c> once it is
/// applied (durable), and deletes the batches it has applied except the last. It runs until standard input closes.
/// </summary>
public static class ShipReplicaCommand
{
    public static int Run(string replicaDirectory, string spool)
    {
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(new StorageOptions(replicaDirectory)
        {
            MaxFlushDelay = TimeSpan.FromMilliseconds(20),
            // The process before this one may have been killed: the kernel can hold its lock until its io_uring is torn down.
            LockWaitTimeout = TimeSpan.FromMinutes(1),
            SyncInterval = TimeSpan.FromMilliseconds(20),
        }));
        Console.WriteLine($"opened {replica.LastAppliedTransactionId}");
        Console.Out.Flush();
        var closed = Task.Run(Console.In.ReadToEnd); // Console.In's async reads block: read on a thread of its own
        while (!closed.IsCompleted)
        {
            var batches = ShipSpool.Batches(spool);
            bool progressed = false;
            foreach (var (path, last) in batches)
            {
                if (last > replica.LastAppliedTransactionId)
                {
                    List<ShippedJournalEntry> entries;
                    using (var file = File.OpenRead(path))
                        entries = [.. ShippedEntryStream.Read(file, path).Where(e => e.TransactionId > replica.LastAppliedTransactionId)];
                    replica.ApplyBatch(entries);
                    Console.WriteLine($"applied {replica.LastAppliedTransactionId}");
                    Console.Out.Flush();
                    progressed = true;
                }
                if (path != batches[^1].Path)
                    File.Delete(path);
            }
            if (!progressed)
                Thread.Sleep(2);
        }
        return 0;
    }
}
