using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// <see cref="StorageEnvironment.GetInfo"/> against what the engine says elsewhere: trees against their own
/// counts, pages against <see cref="StorageEnvironment.Verify"/>, journals against the folder, ids against
/// the environment's properties.
/// </summary>
public class EnvironmentInfoTests
{
    [Fact]
    public void Describes_the_data_file_the_trees_and_the_transaction_ids()
    {
        using var dir = new TestDirectory("info-basics");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        Fill(env, "big", 20_000, valueLength: 40);
        Fill(env, "small", 3, valueLength: 10);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("large-values").Put(Bytes.Key(1), Bytes.Value(1, 3 * StorageConstants.PageSize));
            tx.Commit();
        }

        var info = env.GetInfo();

        Assert.Equal(dir.Path, info.DirectoryPath);
        Assert.Equal(Path.Combine(dir.Path, StorageEnvironment.DataFileName), info.DataFilePath);
        Assert.Equal(env.EnvironmentId, info.EnvironmentId);
        Assert.Equal(FileHeader.CurrentFormatVersion, info.FormatVersion);
        Assert.Equal(StorageConstants.PageSize, info.PageSize);
        Assert.Equal(new FileInfo(info.DataFilePath).Length, info.DataFileBytes);
        Assert.Equal(env.LastCommittedTransactionId, info.LastCommittedTransactionId);
        Assert.Equal(0, info.TransactionsReplayedAtOpen);
        Assert.Equal(SharedJournalRole.None, info.SharedJournalRole);

        Assert.Equal(["big", "large-values", "small"], info.Trees.Select(t => t.Name));
        using var read = env.BeginRead();
        foreach (var tree in info.Trees)
        {
            var state = read.OpenTree(tree.Name).Inner.State;
            Assert.Equal(new TreeInfo
            {
                Name = tree.Name, Entries = state.EntryCount, Depth = state.Depth,
                BranchPages = state.BranchPages, LeafPages = state.LeafPages, OverflowPages = state.OverflowPages,
            }, tree);
        }
        Assert.Equal(20_000, info.Trees[0].Entries);
        Assert.True(info.Trees[0].Depth >= 2, $"20,000 entries in a tree of depth {info.Trees[0].Depth}");
        Assert.Equal(1, info.Trees[2].Depth);
        Assert.True(info.Trees[1].OverflowPages >= 3, $"a 3-page value in {info.Trees[1].OverflowPages} overflow pages");
    }

    [Fact]
    public void Page_counts_match_the_verifier_also_with_pages_waiting_for_a_reader()
    {
        using var dir = new TestDirectory("info-pages");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        Fill(env, "t", 5_000, valueLength: 100);
        AssertPagesMatchVerify(env);

        using (var reader = env.BeginRead())
        {
            using (var tx = env.BeginWrite())
            {
                var t = tx.OpenTree("t");
                for (int k = 0; k < 4_000; k++)
                    t.Delete(Bytes.Key(k));
                tx.Commit();
            }
            var info = AssertPagesMatchVerify(env);
            Assert.True(info.PagesWaitingForReaders > 0, "the open reader keeps the deleted pages waiting");
        }
        Assert.Equal(0, AssertPagesMatchVerify(env).PagesWaitingForReaders);
    }

    [Fact]
    public void Reports_flushed_synced_and_replayed_transactions()
    {
        using var dir = new TestDirectory("info-ids");
        var options = new StorageOptions(dir.Path) { MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1) };
        var env = StorageEnvironment.Open(options);
        Fill(env, "t", 100, valueLength: 10);
        var before = env.GetInfo();
        Assert.True(before.LastSyncedTransactionId < before.LastCommittedTransactionId);
        Assert.Contains(before.Journals, j => !j.IsRecyclable);

        env.Checkpoint();
        var after = env.GetInfo();
        Assert.Equal(after.LastCommittedTransactionId, after.LastFlushedTransactionId);
        Assert.Equal(after.LastCommittedTransactionId, after.LastSyncedTransactionId);

        Fill(env, "u", 10, valueLength: 10);
        long committed = env.LastCommittedTransactionId;
        env.ForTestingPurposesOnly().SimulateProcessCrash();
        using var reopened = StorageEnvironment.Open(options);
        var recovered = reopened.GetInfo();
        Assert.Equal(committed, recovered.LastCommittedTransactionId);
        Assert.Equal(committed - after.LastCommittedTransactionId, recovered.TransactionsReplayedAtOpen);
    }

    [Fact]
    public void Lists_the_journal_files_with_their_sizes_and_links_in_a_journal_group()
    {
        using var dir = new TestDirectory("info-journals");
        using var root = StorageEnvironment.Open(new StorageOptions(dir.File("root")));
        using var branch = root.OpenBranch(new StorageOptions(dir.File("branch")));
        Fill(branch, "t", 10, valueLength: 10);

        var rootInfo = root.GetInfo();
        var branchInfo = branch.GetInfo();

        Assert.Equal(SharedJournalRole.Root, rootInfo.SharedJournalRole);
        Assert.Equal(1, rootInfo.OpenBranches);
        Assert.Equal(SharedJournalRole.Branch, branchInfo.SharedJournalRole);
        Assert.True(branchInfo.SharesRootJournal);

        var linked = Assert.Single(branchInfo.Journals, j => !j.IsRecyclable);
        Assert.Equal(2, linked.LinkCount);
        Assert.Equal(Path.Combine(dir.File("branch"), "Journals", linked.FileName), linked.FilePath);
        Assert.Equal(new FileInfo(linked.FilePath).Length, linked.Bytes);
        Assert.Contains(rootInfo.Journals, j => !j.IsRecyclable && j.LinkCount == 2 && j.Bytes == linked.Bytes);
        foreach (var journal in rootInfo.Journals.Concat(branchInfo.Journals))
            Assert.Equal(Path.GetFileName(journal.FilePath), journal.FileName);
        Assert.Equal(rootInfo.Journals.OrderBy(j => j.IsRecyclable).ThenBy(j => j.Number), rootInfo.Journals);
    }

    private static EnvironmentInfo AssertPagesMatchVerify(StorageEnvironment env)
    {
        // Verify first: it takes back what no reader holds any more, as the next write transaction would.
        var report = env.Verify();
        var info = env.GetInfo();
        Assert.Equal(report.TotalPages, info.HighWaterMark);
        Assert.Equal(report.PagesInUse, info.PagesInUse);
        Assert.Equal(report.FreePages, info.FreePages);
        Assert.Equal(report.PagesWaitingForReaders, info.PagesWaitingForReaders);
        Assert.Equal(info.HighWaterMark, info.PagesInUse + info.FreePages + info.PagesWaitingForReaders);
        return info;
    }

    private static void Fill(StorageEnvironment env, string tree, int entries, int valueLength)
    {
        using var tx = env.BeginWrite();
        var t = tx.CreateTree(tree);
        for (int k = 0; k < entries; k++)
            t.Put(Bytes.Key(k), Bytes.Value(k, valueLength));
        tx.Commit();
    }
}
