using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Commit;

/// <summary>
/// A failed write of lazily committed transactions (through the native layer's fault hooks): readers already
/// saw them, so it cannot be undone; the environment fails, and a reopen holds the durable prefix, whole.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class LazyCommitFaultTests : IDisposable
{
    private const int ENOSPC = 28;
    private const int EIO = 5;

    public void Dispose() => PalFaultInjection.Disarm();

    private static StorageOptions Options(string path) => new(path)
    {
        LazyCommitMaxDelay = TimeSpan.FromHours(1),
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        PrepareSpareJournals = false,
    };

    private static void Put(StorageEnvironment env, int key, CommitMode mode)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Bytes.Key(key), Bytes.Value(key, 300));
        tx.Commit(mode);
    }

    [Theory]
    [InlineData(EIO, false)]
    [InlineData(ENOSPC, false)]
    [InlineData(EIO, true)]
    [InlineData(ENOSPC, true)]
    public void A_failed_write_of_lazy_commits_fails_the_environment_and_a_reopen_keeps_the_durable_prefix(int osError, bool byDurableCommit)
    {
        using var dir = new TestDirectory("lazy-fault");
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
        {
            for (int i = 0; i < 5; i++)
                Put(env, i, CommitMode.Durable);
            for (int i = 5; i < 10; i++)
                Put(env, i, CommitMode.Lazy);

            PalFaultInjection.Arm(PalFaultKind.WriteError, osError: osError, pathFilter: dir.Path + "/");
            var error = byDurableCommit
                ? Assert.Throws<EnvironmentFailedException>(() => Put(env, 10, CommitMode.Durable))
                : Assert.Throws<EnvironmentFailedException>(env.FlushJournal);
            PalFaultInjection.Disarm();

            Assert.True(env.HasFailed);
            Assert.IsAssignableFrom<PalIOException>(error.InnerException);
            Assert.Throws<EnvironmentFailedException>(() => Put(env, 11, CommitMode.Lazy));
            // Readers go on, on what was published.
            using (var tx = env.BeginRead())
                Assert.Equal(10, tx.OpenTree("t").Count);
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        using var read = reopened.BeginRead();
        var tree = read.OpenTree("t");
        // The five durable commits for sure; of the failed write, a prefix at most (a full disk wipes its start).
        Assert.InRange(tree.Count, 5, 10);
        for (int i = 0; i < tree.Count; i++)
            Assert.Equal(Bytes.Value(i, 300), tree.Get(Bytes.Key(i)));
        read.Dispose();
        reopened.Verify();
    }
}
