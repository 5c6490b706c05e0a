using System.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests.Support;

/// <summary>
/// A branch of a journal group as a killed process leaves it: a root and a branch commit (the branch's entries go
/// into its root's journal files, hard-linked into the branch's own <c>Journals/</c>), and both folders are copied
/// together while open, before any flush or sync, so the copy's links stay links (two names for one file).
/// </summary>
public sealed class BranchEnvironment : IDisposable
{
    private readonly TestDirectory _directory;

    public BranchEnvironment(string name, int transactions)
    {
        _directory = new TestDirectory(name);
        try
        {
            string group = _directory.File("group");
            Directory.CreateDirectory(group);
            using var root = StorageEnvironment.Open(Options(Path.Combine(group, "root")));
            using var branch = root.OpenBranch(Options(Path.Combine(group, "branch")));
            for (int k = 0; k < transactions; k++)
            {
                foreach (var env in new[] { root, branch })
                {
                    using var tx = env.BeginWrite();
                    tx.CreateTree("b").Put(BitConverter.GetBytes(k), new byte[300]);
                    tx.Commit();
                }
            }
            Assert.Equal(0, branch.LastSyncedTransactionId);
            string copy = _directory.File("copy");
            using (var cp = Process.Start("cp", ["-a", group, copy]) ?? throw new InvalidOperationException("cp did not start"))
                Assert.True(cp.WaitForExit(TimeSpan.FromMinutes(1)) && cp.ExitCode == 0, $"cp -a {group} {copy} failed");
            GroupPath = copy;
            BranchPath = Path.Combine(copy, "branch");
            Assert.Contains(Directory.GetFiles(Path.Combine(BranchPath, "Journals")), f => Pal.PalFileSystem.LinkCount(f) > 1);
        }
        catch
        {
            _directory.Dispose();
            throw;
        }
    }

    /// <summary>The copied group's folder (the root and the branch).</summary>
    public string GroupPath { get; }

    /// <summary>The copied branch's directory.</summary>
    public string BranchPath { get; }

    private static StorageOptions Options(string path)
        => new(path) { MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1) };

    public void Dispose() => _directory.Dispose();
}
