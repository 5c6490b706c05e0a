using Cairn.Shipping;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

public class ReplicaTests
{
    [Fact]
    public void A_replica_reads_what_its_backup_holds()
    {
        using var dir = new TestDirectory("replica-reads");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("replica"));
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("replica")));
        Assert.Equal(dir.File("replica"), replica.DirectoryPath);
        Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        using (var tx = replica.BeginRead())
            Assert.Equal(10, tx.OpenTree("t").Count);
        var snapshot = replica.BeginReadSnapshot();
        try
        {
            Assert.Equal(10, snapshot.OpenTree(replica.GetTreeHandle("t")).Count);
        }
        finally
        {
            snapshot.Dispose();
        }
        var info = replica.GetInfo();
        Assert.Equal(backupAt, info.LastCommittedTransactionId);
        Assert.Equal(replica.EnvironmentId, info.EnvironmentId);
        Assert.Equal(SharedJournalRole.None, info.SharedJournalRole);
        replica.Verify();
        Assert.False(replica.HasFailed);
        Assert.Null(replica.Failure);
    }

    [Fact]
    public void Applied_entries_make_the_replica_equal_to_the_primary_and_survive_a_crash()
    {
        using var dir = new TestDirectory("replica-apply");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("replica"));
        using var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary")));
        ShippingFixtures.Commit(primary, 5, 30, valueLength: 2000); // overwrites and new keys
        using (var tx = primary.BeginWrite())
        {
            var t = tx.OpenTree("t");
            for (int k = 0; k < 8; k++)
                t.Delete(Bytes.Key(k));
            tx.CreateTree("large").Put(Bytes.Key(1), Bytes.Value(1, 50_000)); // an overflow run
            tx.Commit();
        }
        var expected = ShippingFixtures.Dump(primary);

        var replica = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("replica")));
        try
        {
            Assert.Equal(backupAt, replica.LastAppliedTransactionId);
            foreach (var entry in primary.ReadJournalEntries(backupAt))
                replica.Apply(entry);
            Assert.Equal(primary.LastCommittedTransactionId, replica.LastAppliedTransactionId);
            Assert.Equal(expected, ShippingFixtures.Dump(replica));
            replica.Verify();
            replica.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        finally
        {
            replica.Dispose();
        }
        using (var reopened = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("replica"))))
        {
            Assert.Equal(primary.LastCommittedTransactionId, reopened.LastAppliedTransactionId);
            Assert.Equal(expected, ShippingFixtures.Dump(reopened));
            reopened.Verify();
        }
    }

    [Fact]
    public void Refused_entries_leave_the_replica_usable_where_it_was()
    {
        using var dir = new TestDirectory("replica-refuse");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("replica"));
        List<ShippedJournalEntry> entries;
        using (var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary"))))
        {
            ShippingFixtures.Commit(primary, 100, 3);
            entries = primary.ReadJournalEntries(backupAt).ToList();
        }
        ShippedJournalEntry foreign;
        using (var other = StorageEnvironment.Open(new StorageOptions(dir.File("other"))))
        {
            long before = other.LastCommittedTransactionId;
            ShippingFixtures.Commit(other, 0, 1);
            foreign = other.ReadJournalEntries(before).Single();
        }
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("replica")));

        var gap = Assert.Throws<ShippedEntryOutOfOrderException>(() => replica.Apply(entries[1]));
        Assert.Equal(backupAt, gap.LastAppliedTransactionId);
        Assert.Equal(backupAt + 2, gap.TransactionId);
        Assert.Contains("missing", gap.Message);

        Assert.Throws<ShippedEntryFromOtherEnvironmentException>(() => replica.Apply(foreign));

        var flipped = entries[0].Data.ToArray();
        flipped[400] ^= 1;
        var damaged = Assert.Throws<ShippedEntryDamagedException>(() => replica.Apply(new ShippedJournalEntry(flipped)));
        Assert.Contains("payload hash", damaged.Message);

        var header = entries[0].Data.ToArray();
        header[100] ^= 1;
        Assert.Throws<ShippedEntryDamagedException>(() => replica.Apply(new ShippedJournalEntry(header)));

        var truncated = entries[0].Data[..(entries[0].Data.Length - 4096 > 0 ? entries[0].Data.Length - 4096 : 1000)];
        Assert.Throws<ShippedEntryDamagedException>(() => replica.Apply(new ShippedJournalEntry(truncated)));
        Assert.Throws<ShippedEntryDamagedException>(() => replica.Apply(new ShippedJournalEntry(new byte[10])));

        Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        foreach (var entry in entries)
            replica.Apply(entry);
        Assert.Equal(backupAt + 3, replica.LastAppliedTransactionId);
        var again = Assert.Throws<ShippedEntryOutOfOrderException>(() => replica.Apply(entries[0]));
        Assert.Contains("applied already", again.Message);
        replica.Verify();
    }

    /// <summary>Incremental backup: a full backup plus the shipped entries since, applied through a replica, then opened normally (promotion).</summary>
    [Fact]
    public void An_incremental_backup_restores_the_primary_state_and_the_restored_copy_opens_normally()
    {
        using var dir = new TestDirectory("incremental");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("restore"));
        SortedDictionary<string, string> expected;
        long last;
        using (var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary")) { JournalRetentionBytes = 64L << 20 }))
        {
            ShippingFixtures.Commit(primary, 0, 25, valueLength: 1500);
            using (var first = File.Create(dir.File("inc1.cairnship")))
                last = primary.BackupIncremental(first, backupAt);
            Assert.Equal(primary.LastCommittedTransactionId, last);
            primary.Checkpoint();
            ShippingFixtures.Commit(primary, 1000, 10);
            using (var second = File.Create(dir.File("inc2.cairnship")))
                Assert.Equal(primary.LastCommittedTransactionId, primary.BackupIncremental(second, last));
            expected = ShippingFixtures.Dump(primary);
        }
        using (var replica = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("restore"))))
        {
            using (var inc2 = File.OpenRead(dir.File("inc2.cairnship")))
                Assert.Throws<ShippedEntryOutOfOrderException>(() => replica.ApplyShippedEntries(inc2)); // out of order: the first comes first
            using (var inc1 = File.OpenRead(dir.File("inc1.cairnship")))
                Assert.Equal(25, replica.ApplyShippedEntries(inc1));
            using (var inc2 = File.OpenRead(dir.File("inc2.cairnship")))
                Assert.Equal(10, replica.ApplyShippedEntries(inc2));
            long applied = replica.LastAppliedTransactionId;
            using var promoted = replica.Promote();
            var gone = Assert.Throws<ObjectDisposedException>(() => replica.BeginRead());
            Assert.Contains("promoted", gone.Message, StringComparison.Ordinal);
            Assert.Throws<ObjectDisposedException>(() => replica.LastAppliedTransactionId);
            Assert.Throws<ObjectDisposedException>(() => replica.Promote());
            Assert.Equal(applied, promoted.LastCommittedTransactionId);
            Assert.Equal(expected, ShippingFixtures.Dump(promoted));
            promoted.Verify();
            ShippingFixtures.Commit(promoted, 5000, 3); // a promoted copy allocates from the applied free-space map
            Assert.Equal(applied + 3, promoted.LastCommittedTransactionId);
            promoted.Verify();
            replica.Dispose(); // a no-op once promoted: the directory is the new primary's
            Assert.Equal(applied + 3, promoted.LastCommittedTransactionId);
        }
    }

    [Fact]
    public void A_damaged_shipped_entries_file_is_refused_at_the_damaged_frame_and_keeps_what_came_before()
    {
        using var dir = new TestDirectory("incremental-damaged");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("restore"));
        byte[] file;
        using (var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary"))))
        {
            ShippingFixtures.Commit(primary, 0, 4);
            var stream = new MemoryStream();
            primary.BackupIncremental(stream, backupAt);
            file = stream.ToArray();
        }
        int entryLength = (file.Length) / 4;
        file[2 * entryLength + 64 + 500] ^= 0x80; // the third entry's payload
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("restore")));
        var e = Assert.Throws<ShippedEntryDamagedException>(() => replica.ApplyShippedEntries(new MemoryStream(file)));
        Assert.Equal(backupAt + 2, e.LastAppliedTransactionId);
        Assert.Contains($"offset {2 * entryLength}", e.Message);
        Assert.Equal(backupAt + 2, replica.LastAppliedTransactionId);
    }

    /// <summary>A batch goes in one journal write; a refused entry in it is thrown after those before it are applied, and survives a crash as they do.</summary>
    [Fact]
    public void A_batch_applies_up_to_a_refused_entry_and_survives_a_crash()
    {
        using var dir = new TestDirectory("replica-batch");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("replica"));
        List<ShippedJournalEntry> entries;
        SortedDictionary<string, string> expected;
        using (var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary"))))
        {
            ShippingFixtures.Commit(primary, 0, 12, valueLength: 5000);
            entries = primary.ReadJournalEntries(backupAt).ToList();
            expected = ShippingFixtures.Dump(primary);
        }
        var damaged = entries.ToList();
        var bytes = damaged[7].Data.ToArray();
        bytes[300] ^= 2;
        // Damaged after it was received and checked (the public constructor refuses such bytes): Apply checks again.
        damaged[7] = new ShippedJournalEntry(damaged[7].TransactionId, damaged[7].EnvironmentId, bytes);
        var replica = ReplicaEnvironment.Open(new ReplicaOptions(new StorageOptions(dir.File("replica")) { InitialJournalFileBytes = 64 << 10 }));
        try
        {
            var e = Assert.Throws<ShippedEntryDamagedException>(() => replica.ApplyBatch(damaged));
            Assert.Contains("entry 7 of the batch", e.Message);
            Assert.Equal(backupAt + 7, replica.LastAppliedTransactionId);
            Assert.Equal(5, replica.ApplyBatch(entries.Skip(7).ToList()));
            replica.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        finally
        {
            replica.Dispose();
        }
        using var reopened = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("replica")));
        Assert.Equal(backupAt + 12, reopened.LastAppliedTransactionId);
        Assert.Equal(expected, ShippingFixtures.Dump(reopened));
        reopened.Verify();
    }
}
