using System.Buffers.Binary;
using System.Globalization;

namespace Cairn.TestChild;

/// <summary>
/// <c>ship-primary PRIMARY SPOOL ROUND AFTER</c>: the primary of the replica crash test, which kills it. It opens the
/// primary (journal retention on), commits through 16 WriteAsync callers (each operation puts key (ROUND, caller, n) into
/// tree "items" and prints <c>ack KEY</c> once its task completes, i.e. once it is durable) and, on another thread,
/// ships: writes the entries after the last one spooled (AFTER when the spool is empty) to the spool
/// (<see cref="ShipSpool"/>), acknowledges them and prints <c>spooled TX</c>. When standard input closes it stops
/// the callers, ships the rest, prints <c>stopped TX</c> (its last transaction) and exits.
/// </summary>
public static class ShipPrimaryCommand
{
    public const int Callers = 16;
    private const int MaxEntriesPerBatch = 256;

    public static int Run(string primaryDirectory, string spool, int round, long after)
    {
        using var primary = StorageEnvironment.Open(new StorageOptions(primaryDirectory)
        {
            JournalRetentionBytes = 1L << 30,
            // The process before this one may have been killed: the kernel can hold its lock until its io_uring is torn down.
            LockWaitTimeout = TimeSpan.FromMinutes(1),
            InitialJournalFileBytes = 256 << 10,
            MaxJournalFileBytes = 1 << 20,
            MaxFlushDelay = TimeSpan.FromMilliseconds(20),
            SyncInterval = TimeSpan.FromMilliseconds(20),
        });
        ShipSpool.RemoveTemporaryFiles(spool);
        long shipped = ShipSpool.LastSpooled(spool, after);
        var output = TextWriter.Synchronized(Console.Out);
        output.WriteLine($"opened {primary.LastCommittedTransactionId}");
        output.Flush();
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            for (long n = 0; !stop.IsCancellationRequested; n++)
            {
                long key = Key(round, caller, n);
                await primary.WriteAsync(key, static (tx, k) =>
                {
                    Span<byte> bytes = stackalloc byte[8];
                    BinaryPrimitives.WriteInt64BigEndian(bytes, k);
                    tx.CreateTree("items").Put(bytes, bytes);
                });
                output.WriteLine($"ack {key.ToString(CultureInfo.InvariantCulture)}");
                output.Flush();
            }
        })).ToArray();
        var writing = Task.WhenAll(writers);
        var shipper = Task.Factory.StartNew(() =>
        {
            while (true)
            {
                bool writersDone = writing.IsCompleted; // before reading: every acknowledged write is then durable and read
                var entries = primary.ReadJournalEntries(shipped).Take(MaxEntriesPerBatch).ToList();
                if (entries.Count > 0)
                {
                    ShipSpool.Write(spool, entries);
                    shipped = entries[^1].TransactionId;
                    primary.AcknowledgeShipped(shipped);
                    output.WriteLine($"spooled {shipped}");
                    output.Flush();
                }
                else if (writersDone)
                {
                    return;
                }
                else
                {
                    Thread.Sleep(2);
                }
            }
        }, TaskCreationOptions.LongRunning);
        Console.In.ReadToEnd();
        stop.Cancel();
        writing.GetAwaiter().GetResult();
        shipper.GetAwaiter().GetResult();
        output.WriteLine($"stopped {primary.LastCommittedTransactionId}");
        output.Flush();
        return 0;
    }

    /// <summary>The key of operation <paramref name="n"/> of <paramref name="caller"/> in <paramref name="round"/>: unique across a test.</summary>
    public static long Key(int round, int caller, long n) => ((long)round << 48) | ((long)caller << 40) | n;
}
