using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// When a branch cannot link its root's journal file (the PAL's link fault stands in for another file
/// system, EXDEV, and for a file at its link limit, EMLINK), its commit goes to its own journal before it
/// returns: for good after EXDEV, until the root moves to its next file after EMLINK. Either way the
/// branch reopens alone with everything it acknowledged.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class BranchLinkFallbackTests
{
    private const int CrossDevice = 18; // EXDEV
    private const int TooManyLinks = 31; // EMLINK

    private static StorageOptions Options(string directory, CapturingLoggerFactory? log = null) => new(directory)
    {
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        // Small journals, so the root moves to its next file within the test.
        InitialJournalFileBytes = 64 << 10,
        MaxJournalFileBytes = 64 << 10,
        PrepareSpareJournals = false,
        LoggerFactory = log,
    };

    private static void Put(StorageEnvironment env, long key)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Bytes.Key(key), Bytes.Value(key, 100));
        tx.Commit();
    }

    private static void AssertKeys(string directory, int keys)
    {
        using var env = StorageEnvironment.Open(Options(directory));
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("t");
        Assert.Equal(keys, tree.Count);
        for (long k = 0; k < keys; k++)
            Assert.Equal(Bytes.Value(k, 100), tree.Get(Bytes.Key(k)));
        env.Verify();
    }

    private static string[] Journals(string directory)
        => [.. Directory.GetFiles(Path.Combine(directory, "Journals"), "*.journal").OrderBy(p => p, StringComparer.Ordinal)];

    [Fact]
    public void A_branch_on_another_file_system_writes_its_own_journal_from_then_on()
    {
        using var dir = new TestDirectory("branch-exdev");
        string rootPath = dir.File("root"), branchPath = dir.File("branch");
        var log = new CapturingLoggerFactory();
        var root = StorageEnvironment.Open(Options(rootPath));
        var branch = root.OpenBranch(Options(branchPath, log));
        try
        {
            PalFaultInjection.Arm(PalFaultKind.LinkError, osError: CrossDevice, pathFilter: Path.Combine("branch", "Journals"));
            Put(branch, 0);
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
        Assert.False(branch.SharesRootJournal);
        Assert.Single(log.WithEventId(1601));
        for (int k = 1; k < 10; k++)
        {
            Put(root, k);
            Put(branch, k);
        }
        var own = Assert.Single(Journals(branchPath));
        Assert.Equal(1, PalFileSystem.LinkCount(own));
        branch.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();

        AssertKeys(branchPath, 10);
        using var reopenedRoot = StorageEnvironment.Open(Options(rootPath));
        using var read = reopenedRoot.BeginRead();
        Assert.Equal(9, read.OpenTree("t").Count); // keys 1 to 9: the root never put key 0
    }

    [Fact]
    public void A_root_file_at_its_link_limit_sends_the_branch_to_its_own_journal_until_the_root_moves_on()
    {
        using var dir = new TestDirectory("branch-emlink");
        string rootPath = dir.File("root"), branchPath = dir.File("branch");
        var log = new CapturingLoggerFactory();
        var root = StorageEnvironment.Open(Options(rootPath));
        var branch = root.OpenBranch(Options(branchPath, log));
        Put(root, 0); // the root's first journal in service
        try
        {
            PalFaultInjection.Arm(PalFaultKind.LinkError, osError: TooManyLinks, pathFilter: Path.Combine("branch", "Journals"));
            Put(branch, 0);
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
        Assert.Single(log.WithEventId(1602));
        Assert.True(branch.SharesRootJournal);
        string firstRootJournal = Journals(rootPath)[0];
        Put(branch, 1); // the same root file: straight to its own journal, no new attempt
        Assert.All(Journals(branchPath), j => Assert.False(PalFileSystem.SameFile(j, firstRootJournal)));

        // The root fills its journal and moves on; the branch's next entry shares its next file.
        for (int k = 1; Journals(rootPath).Length < 2; k++)
            Put(root, k);
        int rootKeys = 0;
        using (var tx = root.BeginRead())
            rootKeys = (int)tx.OpenTree("t").Count;
        Put(branch, 2);
        string secondRootJournal = Journals(rootPath)[^1];
        Assert.Contains(Journals(branchPath), j => PalFileSystem.SameFile(j, secondRootJournal));
        branch.ForTestingPurposesOnly().SimulateProcessCrash();
        root.ForTestingPurposesOnly().SimulateProcessCrash();

        AssertKeys(branchPath, 3);
        AssertKeys(rootPath, rootKeys);
    }
}
