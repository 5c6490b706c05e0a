using System.Reflection;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>
/// A replica changes only by applying its primary's entries. That used to be a guard per write method of
/// <see cref="StorageEnvironment"/> (issue 30, item 6: <c>Write</c> lacked it, committed a local transaction that took
/// the primary's next id, and made the replica skip the primary's own); since issue 26 it is a fact of the types: a
/// replica is a <see cref="ReplicaEnvironment"/>, which has no member that writes, and a <see cref="StorageEnvironment"/>
/// has no replica member at all. These tests read the public surface so a write member added later fails here.
/// </summary>
public sealed class ReplicaWriteRefusalTests
{
    // Every way an environment writes or commits a transaction of its own: none may be a member of a replica.
    private static readonly string[] s_writeMembers =
    [
        "BeginWrite", "Write", "WriteAsync", "OpenBranch", "Checkpoint", "FlushJournal", "Commit", "CreateTree", "DeleteTree",
        "Put", "Delete", "AcknowledgeShipped", "BackupIncremental", "MergerStats", "DisposeAsync",
    ];

    // The replica's whole public surface (extension methods of the public static classes included): its reads, its
    // backups (which copy, never write into it), applying shipped entries, and promotion.
    private static readonly string[] s_replicaSurface =
    [
        "Open", "DirectoryPath", "EnvironmentId", "LastAppliedTransactionId", "LastSyncedTransactionId", "IoStats", "HasFailed",
        "Failure", "BeginRead", "BeginReadSnapshot", "GetTreeHandle", "GetInfo", "Verify", "Apply", "ApplyBatch",
        "ApplyShippedEntries", "Promote", "Dispose", "Backup",
    ];

    // What made an environment a replica before issue 26; a StorageEnvironment has none of it now.
    private static readonly string[] s_replicaMembers =
        ["OpenReplica", "IsReplica", "Apply", "ApplyBatch", "ApplyShippedEntries", "LastAppliedTransactionId", "Promote"];

    [Fact]
    public void A_replica_has_no_member_that_writes()
    {
        var names = PublicMemberNames(typeof(ReplicaEnvironment));
        Assert.Empty(names.Intersect(s_writeMembers));
        Assert.Equal(s_replicaSurface.Order(StringComparer.Ordinal), names.Order(StringComparer.Ordinal));
        // Nothing of the replica hands out its engine: the one way to a StorageEnvironment is Promote, which ends the replica.
        var toEnvironment = typeof(ReplicaEnvironment).GetMembers(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static)
            .Where(m => ReturnType(m) is { } type && typeof(StorageEnvironment).IsAssignableFrom(type)).Select(m => m.Name);
        Assert.Equal(["Promote"], toEnvironment);
    }

    [Fact]
    public void A_storage_environment_is_never_a_replica()
    {
        Assert.Empty(PublicMemberNames(typeof(StorageEnvironment)).Intersect(s_replicaMembers));
        Assert.False(typeof(StorageEnvironment).IsAssignableFrom(typeof(ReplicaEnvironment)));
        Assert.False(typeof(ReplicaEnvironment).IsAssignableFrom(typeof(StorageEnvironment)));
        // No public method anywhere in the engine turns options of a replica into a StorageEnvironment but promotion.
        var fromReplicaOptions = typeof(StorageEnvironment).Assembly.GetExportedTypes()
            .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly))
            .Where(m => m.GetParameters().Any(p => p.ParameterType == typeof(ReplicaOptions)))
            .Select(m => $"{m.DeclaringType!.Name}.{m.Name} -> {m.ReturnType.Name}");
        Assert.Equal(["ReplicaEnvironment.Open -> ReplicaEnvironment"], fromReplicaOptions);
    }

    [Fact]
    public void Only_the_primarys_entries_move_the_replica_and_copying_it_does_not()
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
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(replicaPath));
        Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        // Compaction opens its source itself: the replica's folder is in use, and that is what it says.
        Assert.Throws<EnvironmentLockedException>(() => EnvironmentBackup.Compact(replicaPath, dir.File("compacted")));

        // A backup copies what was applied and moves nothing.
        var backup = replica.Backup(dir.File("replica-backup"));
        Assert.Equal(backupAt, backup.TransactionId);
        Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        Assert.False(replica.HasFailed);

        // The primary's next entry applies, and only it.
        Assert.Equal(1, replica.ApplyBatch([.. primary.ReadJournalEntries(replica.LastAppliedTransactionId)]));
        Assert.Equal(primary.LastCommittedTransactionId, replica.LastAppliedTransactionId);
        using (var read = replica.BeginRead())
        {
            Assert.True(read.OpenTree("t").TryGet("b"u8, out var b));
            Assert.Equal("primary"u8.ToArray(), b.ToArray());
        }
        Assert.Equal(ShippingFixtures.Dump(primary), ShippingFixtures.Dump(replica));
        using var copied = StorageEnvironment.Open(new StorageOptions(dir.File("replica-backup")));
        Assert.Equal(backupAt, copied.LastCommittedTransactionId);
    }

    /// <summary>The names of a type's public members, and of the public extension methods on it.</summary>
    private static HashSet<string> PublicMemberNames(Type type)
    {
        var names = type.GetMembers(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static)
            .Where(m => m.DeclaringType != typeof(object) && m is not ConstructorInfo && !(m is MethodInfo { IsSpecialName: true }))
            .Select(m => m.Name).ToHashSet(StringComparer.Ordinal);
        var extensions = type.Assembly.GetExportedTypes().Where(t => t.IsAbstract && t.IsSealed)
            .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Static))
            .Where(m => m.IsDefined(typeof(System.Runtime.CompilerServices.ExtensionAttribute), false) && m.GetParameters()[0].ParameterType == type);
        names.UnionWith(extensions.Select(m => m.Name));
        return names;
    }

    private static Type? ReturnType(MemberInfo member) => member switch
    {
        MethodInfo method => method.ReturnType,
        PropertyInfo property => property.PropertyType,
        FieldInfo field => field.FieldType,
        _ => null,
    };
}
