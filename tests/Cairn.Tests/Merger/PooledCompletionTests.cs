using Cairn.Merger;
using Cairn.Tests.Support;
using static Cairn.Tests.Merger.MergerTestSupport;

namespace Cairn.Tests.Merger;

/// <summary>
/// <c>WriteAsync</c>'s operation objects are pooled task sources (issue 29): one whose caller was cancelled, or whose
/// operation failed in a batch, goes back to its pool and serves the next caller. That caller's task must complete
/// once, with its own result, after its own operation ran: never with the earlier use's outcome, never cancelled by the
/// earlier use's token, and the earlier use's stale queue entry must not run it a second time.
/// </summary>
/// <remarks>
/// Each test's state type is used by no other test, so the pool of its operation objects (one per type) holds only
/// what the test returned to it: the test can tell that the next caller got the very object the last one gave back.
/// </remarks>
public class PooledCompletionTests
{
    [Fact]
    public async Task An_object_given_back_by_a_cancelled_caller_completes_its_next_caller_once_and_its_stale_entry_never_runs()
    {
        using var dir = new TestDirectory("merger-pooled-cancel");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;
        var runs = new int[3];

        using var cts = new CancellationTokenSource();
        var cancelled = env.WriteAsync(new CancelOp(runs, 1), static (tx, op) => op.Run(tx), cts.Token);
        cts.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await cancelled);
        var givenBack = PooledObject<MergedFunction<CancelOp, int>>();

        // Queued behind the cancelled use's stale entry, on the same object.
        var reused = env.WriteAsync(new CancelOp(runs, 2), static (tx, op) => op.Run(tx));
        Assert.NotSame(givenBack, PooledObject<MergedFunction<CancelOp, int>>());
        release.Set();
        await blocker;

        Assert.Equal(2 * 100 + 1, await reused);
        Assert.Equal([0, 0, 1], runs);
        Assert.Null(Read(env, Bytes.Key(1)));
        Assert.Equal(Bytes.Value(2, 10), Read(env, Bytes.Key(2)));
        Assert.Equal(1, env.MergerStatistics.Snapshot().CancelledOperations);
    }

    [Fact]
    public async Task An_object_whose_earlier_caller_held_a_token_is_not_cancelled_by_that_token_later()
    {
        using var dir = new TestDirectory("merger-pooled-token");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        var runs = new int[3];
        using var cts = new CancellationTokenSource();
        Assert.Equal(1 * 100 + 1, await env.WriteAsync(new TokenOp(runs, 1), static (tx, op) => op.Run(tx), cts.Token));
        var givenBack = PooledObject<MergedFunction<TokenOp, int>>();

        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;
        var reused = env.WriteAsync(new TokenOp(runs, 2), static (tx, op) => op.Run(tx));
        Assert.NotSame(givenBack, PooledObject<MergedFunction<TokenOp, int>>());
        // The first use's registration on this token must have gone with it: cancelling now touches nobody.
        cts.Cancel();
        release.Set();
        await blocker;

        Assert.Equal(2 * 100 + 1, await reused);
        Assert.Equal([0, 1, 1], runs);
        Assert.Equal(0, env.MergerStatistics.Snapshot().CancelledOperations);
    }

    [Fact]
    public async Task Objects_given_back_after_a_batch_with_a_failed_operation_complete_their_next_callers_once_each()
    {
        using var dir = new TestDirectory("merger-pooled-failed");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        var runs = new int[7];
        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;

        // Queued together: when the failure drops its transaction, an operation before it in the same batch runs again
        // (where the batch ends depends on the batch's duration limit, so the first may have committed alone).
        var first = env.WriteAsync(new FailingOp(runs, 1, Fails: false), static (tx, op) => op.Run(tx));
        var failing = env.WriteAsync(new FailingOp(runs, 2, Fails: true), static (tx, op) => op.Run(tx));
        var third = env.WriteAsync(new FailingOp(runs, 3, Fails: false), static (tx, op) => op.Run(tx));
        release.Set();
        await blocker;
        int firstResult = await first;
        var error = await Assert.ThrowsAsync<InvalidDataException>(async () => await failing);
        Assert.Equal("operation 2 fails", error.Message);
        Assert.Equal(3 * 100 + 1, await third);
        Assert.Equal(1 * 100 + runs[1], firstResult);
        var givenBack = PooledObject<MergedFunction<FailingOp, int>>();

        // The three objects serve three more callers, held in one batch again; each gets its own operation's result.
        using var secondRelease = new ManualResetEventSlim();
        var (runningAgain, blockerAgain) = Block(env, secondRelease);
        await runningAgain;
        var again = new[]
        {
            env.WriteAsync(new FailingOp(runs, 4, Fails: false), static (tx, op) => op.Run(tx)),
            env.WriteAsync(new FailingOp(runs, 5, Fails: false), static (tx, op) => op.Run(tx)),
            env.WriteAsync(new FailingOp(runs, 6, Fails: false), static (tx, op) => op.Run(tx)),
        };
        Assert.NotSame(givenBack, PooledObject<MergedFunction<FailingOp, int>>());
        secondRelease.Set();
        await blockerAgain;
        for (int i = 0; i < again.Length; i++)
            Assert.Equal((4 + i) * 100 + 1, await again[i]);

        Assert.InRange(runs[1], 1, 2);
        Assert.Equal([1, 1, 1, 1, 1], runs[2..]);
        Assert.Null(Read(env, Bytes.Key(2)));
        foreach (int key in new[] { 1, 3, 4, 5, 6 })
            Assert.Equal(Bytes.Value(key, 10), Read(env, Bytes.Key(key)));
        Assert.Equal(1, env.MergerStatistics.Snapshot().FailedOperations);
    }

    /// <summary>The object on top of the type's pool, left there (rented and given straight back).</summary>
    private static T PooledObject<T>() where T : class, new()
    {
        var item = OperationPool<T>.Rent();
        OperationPool<T>.Return(item);
        return item;
    }

    // One state type per test (see the remarks): each puts its key and answers 100 × key + how often it has run.
    private sealed record CancelOp(int[] Runs, int Key)
    {
        public int Run(WriteTransaction tx) => PutAndCount(tx, Runs, Key);
    }

    private sealed record TokenOp(int[] Runs, int Key)
    {
        public int Run(WriteTransaction tx) => PutAndCount(tx, Runs, Key);
    }

    private sealed record FailingOp(int[] Runs, int Key, bool Fails)
    {
        public int Run(WriteTransaction tx)
        {
            int result = PutAndCount(tx, Runs, Key);
            return Fails ? throw new InvalidDataException($"operation {Key} fails") : result;
        }
    }

    private static int PutAndCount(WriteTransaction tx, int[] runs, int key)
    {
        tx.CreateTree(TreeName).Put(Bytes.Key(key), Bytes.Value(key, 10));
        return key * 100 + ++runs[key];
    }
}
