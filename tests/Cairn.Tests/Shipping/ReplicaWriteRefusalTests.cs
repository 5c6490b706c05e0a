using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>
/// A replica changes only by applying its primary's entries: every way to write into an environment is refused
/// on a replica with <see cref="ReplicaReadOnlyException"/> and leaves <see cref="StorageEnvironment.LastAppliedTransactionId"/>
/// where it was, so the primary's next entry still applies (issue 30, item 6: <c>Write</c> used to commit a local
/// transaction, which took the primary's next transaction id and made the replica skip the primary's own).
/// </summary>
public sealed class ReplicaWriteRefusalTests
{
    [Fact]
    public async Task Every_write_entry_point_is_refused_and_only_the_primarys_entries_move_the_replica()
    {
        using var dir = new TestDirectory("replica-writes");
        string primaryPath = dir.File("primary"), replicaPath = dir.File("replica");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(primaryPath, replicaPath);
        using var primary = StorageEnvironment.Open(new StorageOptions(primaryPath));
        using (var tx = primary.BeginWrite())
        {
            tx.CreateTree("t").Put("b"u8, "primary"u8);
            tx.Commit();
        }
        using var replica = StorageEnvironment.OpenReplica(new ReplicaOptions(replicaPath));
        Assert.Equal(backupAt, replica.LastAppliedTransactionId);

        var refused = new List<(string EntryPoint, Exception? Error)>
        {
            ("BeginWrite()", Record.Exception(() => replica.BeginWrite())),
            ("BeginWrite(timeout)", Record.Exception(() => replica.BeginWrite(TimeSpan.Zero))),
            ("Write(action)", Record.Exception(() => replica.Write(0, static (tx, _) => tx.CreateTree("t").Put("local"u8, "x"u8)))),
            ("Write(function)", Record.Exception(() => replica.Write(0, static (tx, _) =>
            {
                tx.CreateTree("t").Put("local"u8, "x"u8);
                return 1;
            }))),
            ("WriteAsync(action)", await Record.ExceptionAsync(async () =>
                await replica.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("local"u8, "x"u8)))),
            ("WriteAsync(function)", await Record.ExceptionAsync(async () => await replica.WriteAsync(0, static (tx, _) =>
            {
                tx.CreateTree("t").Put("local"u8, "x"u8);
                return 1;
            }))),
            ("OpenBranch", Record.Exception(() => replica.OpenBranch(new StorageOptions(dir.File("branch"))))),
        };
        foreach (var (entryPoint, error) in refused)
        {
            var readOnly = Assert.IsType<ReplicaReadOnlyException>(error);
            Assert.Contains(replicaPath, readOnly.Message, StringComparison.Ordinal);
            Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        }
        Assert.False(Directory.Exists(dir.File("branch")), "a refused OpenBranch created its folder");
        // Compaction opens its source itself: the replica's folder is in use, and that is what it says.
        Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Compact(replicaPath, dir.File("compacted")));

        // Allowed, and none of them moves the replica: they persist or copy what was applied, no transaction of its own.
        replica.FlushJournal();
        replica.Checkpoint();
        var backup = replica.Backup(dir.File("replica-backup"));
        Assert.Equal(backupAt, backup.TransactionId);
        Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        Assert.False(replica.HasFailed);

        // The primary's next entry still applies, and nothing local is there.
        Assert.Equal(1, replica.ApplyBatch([.. primary.ReadJournalEntries(replica.LastAppliedTransactionId)]));
        Assert.Equal(primary.LastCommittedTransactionId, replica.LastAppliedTransactionId);
        using (var read = replica.BeginRead())
        {
            var t = read.OpenTree("t");
            Assert.True(t.TryGet("b"u8, out var b));
            Assert.Equal("primary"u8.ToArray(), b.ToArray());
            Assert.False(t.TryGet("local"u8, out _));
        }
        Assert.Equal(ShippingFixtures.Dump(primary), ShippingFixtures.Dump(replica));
    }
}
