using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A failure anywhere on a journal group's path reaches its callers typed (issue 30, item 2): it fails that one
/// commit with a typed error or latches the environment (<see cref="StorageEnvironment.HasFailed"/>), never an
/// internal exception type such as <see cref="KeyNotFoundException"/>, and no writer of the group waits for ever.
/// Each environment reopens alone afterwards with everything it acknowledged.
/// </summary>
public sealed class GroupFailureTests
{
    // A guard against a hang, not a timing assertion: every step here takes milliseconds.
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(1);

    private static StorageOptions Options(string directory) => JournalKeepingOptions.For(directory);

    private static void Put(StorageEnvironment env, long key)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Bytes.Key(key), Bytes.Value(key, 300));
        tx.Commit();
    }

    /// <summary>Runs <paramref name="step"/> on another thread and returns what it threw (null if nothing); a hang fails the test.</summary>
    private static Exception? Outcome(Action step)
    {
        var task = Task.Run(step);
        Assert.True(((IAsyncResult)task).AsyncWaitHandle.WaitOne(Patience), "a step of the group hung");
        return task.Exception?.InnerException;
    }

    /// <summary>Null, or a failed environment's exception, and then the environment says it failed.</summary>
    private static void AssertTypedOrNothing(StorageEnvironment env, Exception? error)
    {
        if (error is null)
            return;
        Assert.IsType<EnvironmentFailedException>(error);
        Assert.True(env.HasFailed);
    }

    [Theory]
    [InlineData("write")]
    [InlineData("record")]
    public void A_failure_in_the_group_path_is_typed_latches_and_hangs_nobody(string stage)
    {
        using var dir = new TestDirectory($"group-failure-{stage}");
        string rootPath = dir.File("root"), aPath = dir.File("a"), bPath = dir.File("b");
        var root = StorageEnvironment.Open(Options(rootPath));
        var a = root.OpenBranch(Options(aPath));
        var b = root.OpenBranch(Options(bPath));
        var acknowledged = new Dictionary<StorageEnvironment, List<long>> { [root] = [], [a] = [], [b] = [] };
        foreach (var env in new[] { root, a, b })
        {
            Put(env, 1);
            acknowledged[env].Add(1);
        }

        int injected = 0;
        if (stage == "write")
        {
            // The root's journal meets something it does not report as an I/O failure in the middle of a group write.
            root.ForTestingPurposesOnly().Journal.ForTestingPurposesOnly().GroupWritePerforming = _ =>
            {
                if (Interlocked.Exchange(ref injected, 1) == 0)
                    throw new InvalidOperationException("injected: the group write's file went away");
            };
        }
        else
        {
            // Recording a's entry (after the write made it durable in the root's file) meets an internal error.
            root.ForTestingPurposesOnly().Group!.ForTestingPurposesOnly().BranchEntryRecording = request =>
            {
                if (request.Member.EnvironmentId == a.EnvironmentId && Interlocked.Exchange(ref injected, 1) == 0)
                    throw new KeyNotFoundException("injected: the root's file was not present in the dictionary");
            };
        }

        var hit = stage == "write" ? b : a;
        var failure = Outcome(() => Put(hit, 2));
        Assert.Equal(1, injected);
        var failed = Assert.IsType<EnvironmentFailedException>(failure);
        Assert.True(hit.HasFailed);
        Assert.Same(failed.InnerException?.GetType(), hit.Failure!.InnerException?.GetType());
        // Every later write of the environment that failed is refused, typed, at once.
        Assert.IsType<EnvironmentFailedException>(Outcome(() => Put(hit, 3)));
        Assert.IsType<EnvironmentFailedException>(Outcome(() => hit.Write(4L, static (tx, k) => tx.CreateTree("t").Put(Bytes.Key(k), "x"u8))));

        // Every other member goes on or fails typed and latched, merged writes too; none hangs.
        foreach (var env in new[] { root, a, b }.Where(e => e != hit))
        {
            for (long key = 10; key < 13; key++)
            {
                var error = Outcome(() => Put(env, key));
                AssertTypedOrNothing(env, error);
                if (error is null)
                    acknowledged[env].Add(key);
            }
            long merged = 20;
            var mergedError = Outcome(() => env.Write(merged, static (tx, k) => tx.CreateTree("t").Put(Bytes.Key(k), Bytes.Value(k, 300))));
            AssertTypedOrNothing(env, mergedError);
            if (mergedError is null)
                acknowledged[env].Add(merged);
        }
        if (stage == "record")
        {
            // Only the branch whose entry could not be recorded stopped: the root's journal is sound.
            Assert.False(root.HasFailed);
            Assert.False(b.HasFailed);
        }
        else
        {
            // The root's journal failed for good under the group: its own commits are refused too.
            Assert.True(root.HasFailed);
        }

        Assert.Null(Outcome(b.Dispose));
        Assert.Null(Outcome(a.Dispose));
        Assert.Null(Outcome(root.Dispose));
        foreach (var (path, keys) in new[] { (rootPath, acknowledged[root]), (aPath, acknowledged[a]), (bPath, acknowledged[b]) })
        {
            using var alone = StorageEnvironment.Open(Options(path));
            using (var tx = alone.BeginRead())
            {
                var tree = tx.OpenTree("t");
                foreach (long key in keys)
                    Assert.True(tree.TryGet(Bytes.Key(key), out _), $"'{path}' lost acknowledged key {key}");
            }
            alone.Verify();
        }
    }
}
