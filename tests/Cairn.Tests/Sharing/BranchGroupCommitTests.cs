using Cairn.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A branch's own group commit rides one shared write: the transactions it has waiting (here lazy commits, which wait
/// for the next write as group-committed ones do) go into the root's next write together, not one write each, and
/// the branch reopens alone after a crash with every one of them.
/// </summary>
public sealed class BranchGroupCommitTests
{
    private const string TreeName = "t";

    private static StorageOptions Options(string directory) => new(directory)
    {
        // Nothing is flushed or synced behind the test's back, and nothing is written before FlushJournal asks.
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        LazyCommitMaxDelay = TimeSpan.FromHours(1),
    };

    [Fact]
    public void A_branchs_waiting_commits_go_into_one_shared_write_and_it_reopens_alone_with_them()
    {
        using var dir = new TestDirectory("branch-group-commit");
        string rootPath = dir.File("root"), branchPath = dir.File("b");
        var root = StorageEnvironment.Open(Options(rootPath));
        var branch = root.OpenBranch(Options(branchPath));
        for (long k = 0; k < 5; k++)
        {
            using var tx = branch.BeginWrite();
            tx.CreateTree(TreeName).Put(Bytes.Key(k), Bytes.Value(k, 100));
            tx.Commit(CommitMode.Lazy);
        }
        long writesBefore = JournalWrites(root).Length;

        branch.FlushJournal();

        var writes = JournalWrites(root);
        Assert.Equal(writesBefore + 1, writes.Length);
        Assert.Equal((5, 1), (writes[^1].TransactionCount, writes[^1].EnvironmentCount));
        Assert.Equal(["b"], writes[^1].Environments);
        branch.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();

        using var alone = StorageEnvironment.Open(Options(branchPath));
        using var read = alone.BeginRead();
        var tree = read.OpenTree(TreeName);
        Assert.Equal(5, tree.Count);
        for (long k = 0; k < 5; k++)
            Assert.Equal(Bytes.Value(k, 100), tree.Get(Bytes.Key(k)));
        alone.Verify();
    }

    private static IoOperation[] JournalWrites(StorageEnvironment environment)
        => [.. environment.IoStats.Snapshot().Where(op => op.Kind == IoOperationKind.JournalWrite)];
}
