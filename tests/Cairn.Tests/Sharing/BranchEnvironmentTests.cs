using Cairn.Journal;
using Cairn.Pal;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// Root and branch environments (<see cref="StorageEnvironment.OpenBranch"/>): each is a complete
/// environment whose commits, through <c>BeginWrite</c> or its merger, go into the root's journal files,
/// linked into its own <c>Journals/</c>; each reopens alone, after a clean close or a crash, with
/// everything it acknowledged; a root that closes first sends its branches to their own journals.
/// </summary>
public sealed class BranchEnvironmentTests
{
    private const string TreeName = "t";

    private static StorageOptions Options(string directory, CapturingLoggerFactory? log = null) => new(directory)
    {
        // Nothing is flushed or synced behind the test's back: the journals are what recovery gets.
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        LoggerFactory = log,
    };

    private static void Put(StorageEnvironment env, long key, int round)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree(TreeName).Put(Bytes.Key(key), Bytes.Value(key * 100 + round, 100));
        tx.Commit();
    }

    private static ValueTask PutAsync(StorageEnvironment env, long key, int round)
        => env.WriteAsync((Key: key, Round: round), static (tx, s) => tx.CreateTree(TreeName).Put(Bytes.Key(s.Key), Bytes.Value(s.Key * 100 + s.Round, 100)));

    private static void AssertHolds(StorageEnvironment env, int keys, int round)
    {
        using var tx = env.BeginRead();
        var tree = tx.OpenTree(TreeName);
        Assert.Equal(keys, tree.Count);
        for (long k = 0; k < keys; k++)
            Assert.Equal(Bytes.Value(k * 100 + round, 100), tree.Get(Bytes.Key(k)));
        env.Verify();
    }

    private static string[] JournalFiles(string directory)
        => [.. Directory.GetFiles(Path.Combine(directory, "Journals"), "*.journal").OrderBy(p => p, StringComparer.Ordinal)];

    [Fact]
    public async Task Branch_commits_go_into_the_root_journal_and_each_environment_reopens_alone()
    {
        using var dir = new TestDirectory("branches");
        string rootPath = dir.File("root"), aPath = dir.File("a"), bPath = dir.File("b");
        var log = new CapturingLoggerFactory();
        using (var root = StorageEnvironment.Open(Options(rootPath)))
        {
            using var a = root.OpenBranch(Options(aPath, log));
            using var b = root.OpenBranch(Options(bPath, log));
            Assert.Equal(SharedJournalRole.Branch, a.JournalGroupRole);
            Assert.True(a.SharesRootJournal);
            Assert.Equal(SharedJournalRole.Root, root.JournalGroupRole);
            Assert.False(root.SharesRootJournal);
            Assert.Equal(2, root.BranchCount);
            Assert.Equal(2, log.WithEventId(1605).Count());
            for (int k = 0; k < 20; k++)
            {
                Put(root, k, 1);
                Put(a, k, 2);
                await PutAsync(b, k, 3);
            }
            // Each environment numbers its own transactions; every entry went into the root's one journal.
            Assert.Equal(root.LastCommittedTransactionId, a.LastCommittedTransactionId);
            string rootJournal = Assert.Single(JournalFiles(rootPath));
            Assert.True(PalFileSystem.SameFile(rootJournal, Assert.Single(JournalFiles(aPath))));
            Assert.True(PalFileSystem.SameFile(rootJournal, Assert.Single(JournalFiles(bPath))));
            Assert.Equal(3, PalFileSystem.LinkCount(rootJournal));
            AssertHolds(a, 20, 2);
            AssertHolds(b, 20, 3);
        }
        foreach (var (path, round) in new[] { (aPath, 2), (bPath, 3), (rootPath, 1) })
        {
            using var alone = StorageEnvironment.Open(Options(path));
            AssertHolds(alone, 20, round);
        }
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task After_a_crash_every_environment_recovers_what_it_acknowledged(bool branchesFirst)
    {
        using var dir = new TestDirectory("branches-crash");
        string rootPath = dir.File("root");
        string[] branchPaths = [dir.File("a"), dir.File("b"), dir.File("c")];
        var root = StorageEnvironment.Open(Options(rootPath));
        var branches = branchPaths.Select(p => root.OpenBranch(Options(p))).ToArray();
        var writers = branches.Select((branch, i) => Task.Run(async () =>
        {
            for (int k = 0; k < 40; k++)
            {
                if (k % 2 == 0)
                    Put(branch, k, i + 1);
                else
                    await PutAsync(branch, k, i + 1);
            }
        })).ToList();
        writers.Add(Task.Run(() =>
        {
            for (int k = 0; k < 40; k++)
                Put(root, k, 0);
        }));
        await Task.WhenAll(writers).WaitAsync(TimeSpan.FromMinutes(2));
        foreach (var branch in branches)
            branch.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();

        string[] order = branchesFirst ? [.. branchPaths, rootPath] : [rootPath, .. branchPaths];
        foreach (var path in order)
        {
            using var alone = StorageEnvironment.Open(Options(path));
            int round = path == rootPath ? 0 : Array.IndexOf(branchPaths, path) + 1;
            AssertHolds(alone, 40, round);
        }
    }

    [Fact]
    public void A_sharing_branch_prepares_no_spare_journal_of_its_own_until_it_falls_back()
    {
        using var dir = new TestDirectory("branch-spares");
        string rootPath = dir.File("root"), aPath = dir.File("a");
        var root = StorageEnvironment.Open(new StorageOptions(rootPath));
        using var a = root.OpenBranch(new StorageOptions(aPath));
        for (int k = 0; k < 20; k++)
            Put(a, k, 1);
        Assert.Empty(Directory.GetFiles(Path.Combine(aPath, "Journals"), "recyclable.*"));

        root.Dispose(); // the branch falls back to its own journal, and wants a spare once that is half full
        bool spare = false;
        for (int k = 0; k < 2000 && !spare; k++)
        {
            Put(a, k % 20, 2);
            spare = Directory.GetFiles(Path.Combine(aPath, "Journals"), "recyclable.*").Length > 0;
        }
        Assert.False(a.SharesRootJournal);
        Assert.True(spare, "no spare journal was prepared after the branch fell back to its own journal");
    }

    [Fact]
    public void A_branch_cannot_have_branches_nor_share_its_root_directory()
    {
        using var dir = new TestDirectory("branch-rules");
        using var root = StorageEnvironment.Open(Options(dir.File("root")));
        using var branch = root.OpenBranch(Options(dir.File("a")));
        var nested = Assert.Throws<InvalidOperationException>(() => branch.OpenBranch(Options(dir.File("b"))));
        Assert.Contains("cannot have branches", nested.Message);
        Assert.Throws<ArgumentException>(() => root.OpenBranch(Options(dir.File("root"))));
        Assert.Equal(1, root.BranchCount);
    }

    [Fact]
    public void When_the_root_closes_first_its_branch_writes_its_own_journal_and_loses_nothing()
    {
        using var dir = new TestDirectory("branch-orphan");
        string rootPath = dir.File("root"), aPath = dir.File("a");
        var log = new CapturingLoggerFactory();
        var root = StorageEnvironment.Open(Options(rootPath));
        var a = root.OpenBranch(Options(aPath, log));
        for (int k = 0; k < 10; k++)
        {
            Put(root, k, 9);
            Put(a, k, 1);
        }
        root.Dispose();
        for (int k = 0; k < 20; k++)
            Put(a, k, 2);
        Assert.False(a.SharesRootJournal);
        Assert.Single(log.WithEventId(1604));
        // The root's close deleted its own names; the branch's link keeps the shared file.
        Assert.Empty(JournalFiles(rootPath));
        Assert.Equal(2, JournalFiles(aPath).Length);
        a.ForTestingPurposesOnly().SimulateProcessCrash();

        using var alone = StorageEnvironment.Open(Options(aPath));
        AssertHolds(alone, 20, 2);
    }

    /// <summary>A root and one branch that both committed, crashed: the branch's journals are links into the root's.</summary>
    private static void CrashAGroup(string rootPath, string branchPath, int keys)
    {
        var root = StorageEnvironment.Open(Options(rootPath));
        var branch = root.OpenBranch(Options(branchPath));
        for (int k = 0; k < keys; k++)
        {
            Put(root, k, 0);
            Put(branch, k, 1);
        }
        Assert.All(JournalFiles(branchPath), j => Assert.Equal(2, PalFileSystem.LinkCount(j)));
        branch.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();
    }

    [Fact]
    public void A_moved_branch_folder_keeps_its_links_and_recovers()
    {
        using var dir = new TestDirectory("branch-moved");
        string rootPath = dir.File("root"), branchPath = dir.File("a"), moved = dir.File("moved");
        CrashAGroup(rootPath, branchPath, 15);

        Directory.Move(branchPath, moved);

        Assert.All(JournalFiles(moved), j => Assert.Equal(2, PalFileSystem.LinkCount(j)));
        using (var alone = StorageEnvironment.Open(Options(moved)))
            AssertHolds(alone, 15, 1);
        using (var root = StorageEnvironment.Open(Options(rootPath)))
            AssertHolds(root, 15, 0);
    }

    [Fact]
    public void A_copied_branch_folder_has_plain_journals_and_recovers_then_shares_again()
    {
        using var dir = new TestDirectory("branch-copied");
        string rootPath = dir.File("root"), branchPath = dir.File("a"), copy = dir.File("copy");
        CrashAGroup(rootPath, branchPath, 15);

        CopyDirectory(branchPath, copy);

        Assert.All(JournalFiles(copy), j => Assert.Equal(1, PalFileSystem.LinkCount(j)));
        using (var alone = StorageEnvironment.Open(Options(copy)))
            AssertHolds(alone, 15, 1);
        // The original still recovers from its links; then the copy joins a group of its own and shares again.
        using (var original = StorageEnvironment.Open(Options(branchPath)))
            AssertHolds(original, 15, 1);
        using var newRoot = StorageEnvironment.Open(Options(dir.File("new-root")));
        using (var branch = newRoot.OpenBranch(Options(copy)))
        {
            Put(branch, 15, 1);
            Assert.Contains(JournalFiles(copy), j => PalFileSystem.SameFile(j, JournalFiles(dir.File("new-root"))[^1]));
        }
    }

    [Fact]
    public void A_journal_of_another_group_linked_into_an_environment_is_refused_naming_it()
    {
        using var dir = new TestDirectory("branch-foreign");
        string rootPath = dir.File("root"), branchPath = dir.File("a"), other = dir.File("other");
        CrashAGroup(rootPath, branchPath, 5);
        using (var env = StorageEnvironment.Open(Options(other)))
            Put(env, 0, 0);
        // The root's journal, linked into an unrelated environment under a number it would read next.
        string stray = Path.Combine(other, "Journals", "0000000000000000099.journal");
        PalFileSystem.HardLink(JournalFiles(rootPath)[0], stray);

        var error = Assert.Throws<JournalCorruptionException>(() => StorageEnvironment.Open(Options(other)));
        Assert.Contains(stray, error.Message);
        Assert.Contains("another environment", error.Message);
    }

    private static void CopyDirectory(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.GetFiles(from))
            File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
        foreach (var sub in Directory.GetDirectories(from))
            CopyDirectory(sub, Path.Combine(to, Path.GetFileName(sub)));
    }

    /// <summary>
    /// A file whose torn tail recovery left in place, because other environments named it, keeps the entries
    /// after the tear: one of them the root's transaction 3, written whole in the torn (never acknowledged)
    /// write. Once the other names are gone and a sync covers the file, the root must delete it, not recycle
    /// it: recycled, it went back into service with that entry still in it, a branch's entries overwrote the
    /// file up to it, and the root's next recovery walked into it and replayed transaction 3, which its first
    /// recovery had discarded and its checkpoint had synced the database without.
    /// </summary>
    [Fact]
    public void A_journal_recovered_with_a_torn_shared_tail_is_never_recycled()
    {
        using var dir = new TestDirectory("branch-torn-recycle");
        string rootPath = dir.File("root"), aPath = dir.File("a"), bPath = dir.File("b");
        // Small journals, recycled when released; the root prepares no spares, so its recycling slots are free.
        static StorageOptions Recycling(string path, CapturingLoggerFactory? log = null) => new(path)
        {
            FlushThresholdBytes = 1L << 30,
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            InitialJournalFileBytes = 64 << 10,
            MaxJournalFileBytes = 1L << 30,
            PrepareSpareJournals = false,
            JournalGroupMaxInFlightWrites = 1, // the held write's followers queue behind it
            LoggerFactory = log,
        };
        var root = StorageEnvironment.Open(Recycling(rootPath));
        var a = root.OpenBranch(Recycling(aPath));
        var b = root.OpenBranch(Recycling(bPath));
        Guid rootId = root.EnvironmentId, aId = a.EnvironmentId;
        Put(root, 0, 1);
        Put(a, 0, 1);
        Put(b, 0, 1);
        Put(root, 1, 1);
        // b's write is held while a's commit and then the root's third queue: they go in one write, a's entry first.
        HeldGroupWrite.Together(root, () => Put(b, 1, 1), () => Put(a, 1, 1), () => Put(root, 2, 1));
        b.ForTestingPurposesOnly().SimulateProcessCrash();
        a.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();

        // A power loss tore that write: a's entry did not reach the disk, the root's transaction 3 after it did.
        string file = Assert.Single(JournalFiles(rootPath));
        var entries = Entries(file);
        var (third, header) = Assert.Single(entries, e => e.Header.EnvironmentId == rootId && e.Header.OffsetInWrite > 0);
        Assert.Equal(3, header.TransactionId);
        long torn = third - header.OffsetInWrite;
        Assert.Contains(entries, e => e.Offset == torn && e.Header.EnvironmentId == aId);
        using (var stream = new FileStream(file, FileMode.Open, FileAccess.Write))
        {
            stream.Position = torn;
            stream.Write(Enumerable.Repeat((byte)0xAB, 512).ToArray());
        }

        // The root recovers alone: transactions 1 and 2; the torn tail stays, the branches name the file.
        var log = new CapturingLoggerFactory();
        root = StorageEnvironment.Open(Recycling(rootPath, log));
        Assert.Single(log.WithEventId(1105));
        Assert.Equal(2, root.LastCommittedTransactionId);
        // Each branch recovers alone and closes cleanly: its name of the file goes. The root's sync then covers the file.
        foreach (var path in new[] { aPath, bPath })
        {
            using var alone = StorageEnvironment.Open(Recycling(path));
            alone.Checkpoint();
        }
        Assert.Equal(1, PalFileSystem.LinkCount(file));
        root.Checkpoint();
        Assert.False(File.Exists(file));

        // A branch again: its entries go into the root's next file, until they reach where transaction 3 was in the old one.
        a = root.OpenBranch(Recycling(aPath));
        for (int k = 10; JournalFiles(rootPath) is not [.., var newest] || ChainEnd(newest) < third; k++)
        {
            Assert.True(k < 100, "the branch's entries never reached the old offset of transaction 3");
            Put(a, k, 2);
        }
        a.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();

        using var again = StorageEnvironment.Open(Recycling(rootPath));
        Assert.Equal(2, again.LastCommittedTransactionId);
        AssertHolds(again, 2, 1);
    }

    /// <summary>The valid entries of a journal file, front to back, up to the first invalid position.</summary>
    private static List<(long Offset, JournalEntryHeader Header)> Entries(string path)
    {
        var entries = new List<(long, JournalEntryHeader)>();
        for (long offset = 0; ; )
        {
            var found = JournalHarness.EntryAt(path, offset);
            if (!found.IsValid)
                return entries;
            entries.Add((offset, found.Header));
            offset += found.EntrySize;
        }
    }

    private static long ChainEnd(string path) => Entries(path) is { Count: > 0 } entries ? entries[^1].Offset + JournalHarness.EntryAt(path, entries[^1].Offset).EntrySize : 0;
}
