using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>
/// A primary process commits through 16 WriteAsync callers and spools its committed entries (tests/Cairn.TestChild
/// ShipPrimaryCommand); a replica process applies them (ShipReplicaCommand). The test SIGKILLs them independently at
/// seeded moments (the primary alone, the replica alone, often mid-batch, or both) and restarts them: the replica resumes
/// from its own last applied transaction, the primary from its last spooled one. At the end the primary holds every
/// acknowledged operation and the replica exactly the primary's content.
/// </summary>
public class ReplicaCrashTests
{
    private const int Rounds = 9;

    private enum Victim { Primary, Replica, Both }

    [Fact]
    public async Task Primary_and_replica_killed_independently_converge_with_every_acknowledged_transaction()
    {
        using var dir = new TestDirectory("replica-crash");
        string primaryPath = dir.File("primary"), replicaPath = dir.File("replica"), spool = dir.File("spool");
        Directory.CreateDirectory(spool);
        long backup = ShippingFixtures.CreatePrimaryAndBackup(primaryPath, replicaPath, keys: 1);
        var acknowledged = new HashSet<long>();
        var random = new Random(17);
        long reported = backup; // the highest transaction the replica has reported applied (or opened at)
        int primaryRound = 1;
        var primary = ShippingChild.Primary(primaryPath, spool, primaryRound, backup, acknowledged);
        var replica = ShippingChild.Replica(replicaPath, spool);
        var kills = new Dictionary<Victim, int> { [Victim.Primary] = 0, [Victim.Replica] = 0, [Victim.Both] = 0 };
        try
        {
            for (int round = 0; round < Rounds; round++)
            {
                // Every victim at least twice; the moments vary with the seed.
                var victim = round < 6 ? (Victim)(round % 3) : (Victim)random.Next(3);
                int acks = random.Next(0, 400), batches = random.Next(0, 12);
                if (victim != Victim.Replica)
                    await primary.WaitUntil(p => p.Events >= acks);
                if (victim != Victim.Primary)
                    await replica.WaitUntil(r => r.Events >= batches); // the next batch is likely being applied: killed mid-apply
                if (victim != Victim.Primary)
                {
                    await replica.KillAsync();
                    Assert.Null(replica.Problem);
                    reported = Math.Max(reported, replica.Last);
                    replica.Dispose();
                }
                if (victim != Victim.Replica)
                {
                    await primary.KillAsync();
                    primary.Dispose();
                    primary = ShippingChild.Primary(primaryPath, spool, ++primaryRound, backup, acknowledged);
                }
                if (victim != Victim.Primary)
                {
                    replica = ShippingChild.Replica(replicaPath, spool);
                    await replica.WaitUntil(r => r.Opened >= 0);
                    Assert.True(replica.Opened >= reported, $"round {round}: the replica reopened at {replica.Opened}, it had reported {reported} applied");
                }
                kills[victim]++;
            }

            // A clean end: the primary stops its callers and spools the rest; the replica applies up to its last transaction.
            await primary.WaitUntil(p => p.Events >= 100);
            await primary.StopAsync();
            long last = primary.Stopped;
            await replica.WaitUntil(r => Math.Max(r.Opened, r.Last) >= last);
            await replica.StopAsync();
            Assert.Null(primary.Problem);
            Assert.Null(replica.Problem);
        }
        finally
        {
            primary.Dispose();
            replica.Dispose();
        }

        using var primaryEnvironment = StorageEnvironment.Open(KilledProcess.Reopening(new StorageOptions(primaryPath) { JournalRetentionBytes = 1L << 30 }));
        using (var tx = primaryEnvironment.BeginRead())
        {
            var items = tx.OpenTree("items");
            foreach (long key in acknowledged)
                Assert.True(items.TryGet(Bytes.Key(key), out ReadOnlySpan<byte> _), $"acknowledged operation {key:x} is missing on the primary");
        }
        using var replicaEnvironment = ReplicaEnvironment.Open(new ReplicaOptions(KilledProcess.Reopening(new StorageOptions(replicaPath))));
        Assert.Equal(primaryEnvironment.LastCommittedTransactionId, replicaEnvironment.LastAppliedTransactionId);
        Assert.Equal(ShippingFixtures.Dump(primaryEnvironment), ShippingFixtures.Dump(replicaEnvironment));
        primaryEnvironment.Verify();
        replicaEnvironment.Verify();
        Assert.All(kills.Values, k => Assert.True(k >= 2));
        Assert.True(acknowledged.Count >= 100);
    }
}
