using System.Buffers.Binary;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>
/// A child process commits on a primary through 16 WriteAsync callers while it ships to a replica, and is SIGKILLed
/// mid-flight (the primary committing, the replica applying). After each kill the primary recovers with every
/// acknowledged operation, the replica recovers at a transaction the primary has, and shipping resumes from the
/// replica's last applied transaction until the two are equal; then the next child goes on from there.
/// </summary>
public class ReplicaCrashTests
{
    private const int Cycles = 4;

    [Fact]
    public async Task After_SIGKILL_the_replica_resumes_from_its_last_applied_transaction_and_converges()
    {
        using var dir = new TestDirectory("replica-crash");
        string primaryPath = dir.File("primary"), replicaPath = dir.File("replica");
        ShippingFixtures.CreatePrimaryAndBackup(primaryPath, replicaPath, keys: 1);
        var acknowledged = new HashSet<long>();
        var random = new Random(17);
        for (int cycle = 1; cycle <= Cycles; cycle++)
        {
            int killAfter = 100 + random.Next(400); // acknowledged operations before the kill: a different moment each cycle
            long lastApplied = -1;
            using (var child = ChildProcess.Start("ship-pair", primaryPath, replicaPath, cycle.ToString(System.Globalization.CultureInfo.InvariantCulture)))
            {
                var error = child.StandardError.ReadToEndAsync();
                int acks = 0;
                try
                {
                    while (acks < killAfter && await child.StandardOutput.ReadLineAsync() is { } line)
                    {
                        if (line.StartsWith("ack ", StringComparison.Ordinal))
                        {
                            acknowledged.Add(long.Parse(line.AsSpan(4), System.Globalization.CultureInfo.InvariantCulture));
                            acks++;
                        }
                        else if (line.StartsWith("applied ", StringComparison.Ordinal))
                        {
                            lastApplied = long.Parse(line.AsSpan(8), System.Globalization.CultureInfo.InvariantCulture);
                        }
                    }
                }
                finally
                {
                    child.Kill(entireProcessTree: true);
                    await child.WaitForExitAsync();
                }
                Assert.True(acks == killAfter, $"the child stopped after {acks} acknowledgements: {await error}");
            }

            using var primary = StorageEnvironment.Open(new StorageOptions(primaryPath) { JournalRetentionBytes = 1L << 30 });
            using (var tx = primary.BeginRead())
            {
                var items = tx.OpenTree("items");
                foreach (long key in acknowledged)
                    Assert.True(items.TryGet(Bytes.Key(key), out ReadOnlySpan<byte> _), $"cycle {cycle}: acknowledged operation {key:x} is missing on the primary");
            }
            using (var replica = StorageEnvironment.OpenReplica(new ReplicaOptions(replicaPath)))
            {
                Assert.True(replica.LastAppliedTransactionId >= lastApplied, $"cycle {cycle}: the replica lost applied transaction {lastApplied}");
                Assert.True(replica.LastAppliedTransactionId <= primary.LastCommittedTransactionId);
                foreach (var entry in primary.ReadJournalEntries(replica.LastAppliedTransactionId))
                    replica.Apply(entry);
                Assert.Equal(primary.LastCommittedTransactionId, replica.LastAppliedTransactionId);
                Assert.Equal(ShippingFixtures.Dump(primary), ShippingFixtures.Dump(replica));
                replica.Verify();
            }
            primary.Verify();
        }
        Assert.True(acknowledged.Count >= Cycles * 100);
    }
}
