using Cairn.Tests.Support;
using static Cairn.Tests.Merger.MergerTestSupport;

namespace Cairn.Tests.Merger;

/// <summary>
/// Where a <c>WriteAsync</c> caller's continuation runs (issue 29): never on a thread doing the merger's work, which holds
/// the write lock for its whole chain of transactions. A lone caller's continuation runs on the merger's thread once its
/// chain has ended (lent: no lock held, the merger's work going to a stand-in if the continuation lasts); everyone
/// else's on the thread pool. A continuation that then waits for another merged write, blocking (<c>Write</c>, or a task
/// waited on), or that begins its own write transaction, or closes the environment, must finish instead of waiting for
/// the thread it runs on.
/// </summary>
public class CompletionThreadTests
{
    // Only a deadlock reaches it.
    private static readonly TimeSpan HangCeiling = TimeSpan.FromMinutes(5);

    [Fact]
    public async Task A_continuation_that_blocks_on_more_writes_and_begins_its_own_transaction_completes()
    {
        using var dir = new TestDirectory("merger-completion-thread");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        // Out of the test framework's synchronization context, and with ConfigureAwait(false): each continuation runs
        // on the thread that completed the caller's task.
        var work = Task.Run(async () =>
        {
            for (int i = 0; i < 20; i++)
            {
                await env.WriteAsync(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 10))); })
                    .ConfigureAwait(false);
                env.Write(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k + 100), Bytes.Value(k, 20))); });
                if (!env.WriteAsync(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k + 200), Bytes.Value(k, 30))); })
                        .AsTask().Wait(HangCeiling))
                    throw new TimeoutException("A merged write waited on from a continuation never completed.");
                using var tx = env.BeginWrite();
                Put(tx, new PutRequest(Bytes.Key(i + 300), Bytes.Value(i, 40)));
                tx.Commit();
            }
        });
        await work.WaitAsync(HangCeiling);
        for (int i = 0; i < 20; i++)
        {
            Assert.Equal(Bytes.Value(i, 10), Read(env, Bytes.Key(i)));
            Assert.Equal(Bytes.Value(i, 20), Read(env, Bytes.Key(i + 100)));
            Assert.Equal(Bytes.Value(i, 30), Read(env, Bytes.Key(i + 200)));
            Assert.Equal(Bytes.Value(i, 40), Read(env, Bytes.Key(i + 300)));
        }
    }
    [Fact]
    public async Task A_lone_callers_continuation_runs_on_the_merger_thread_without_a_hop()
    {
        using var dir = new TestDirectory("merger-completion-lent");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        var threads = await Task.Run(async () =>
        {
            var names = new List<string?>();
            for (int i = 0; i < 20; i++)
            {
                await env.WriteAsync(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 10))); })
                    .ConfigureAwait(false);
                names.Add(Thread.CurrentThread.Name);
            }
            return names;
        }).WaitAsync(HangCeiling);
        // The first write may find the merger's thread not yet started or another chain's state; after it, a lone
        // caller's every continuation runs where its transaction was written.
        Assert.All(threads.Skip(1), name => Assert.Equal("cairn-merger", name));
    }

    [Fact]
    public async Task Another_caller_is_served_while_a_lent_continuation_blocks()
    {
        using var dir = new TestDirectory("merger-completion-standin");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        using var release = new ManualResetEventSlim(false);
        var blocked = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var lone = Task.Run(async () =>
        {
            // Warm: later writes are lent.
            await env.WriteAsync(0, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 1))); }).ConfigureAwait(false);
            await env.WriteAsync(1, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 1))); }).ConfigureAwait(false);
            string? where = Thread.CurrentThread.Name;
            blocked.TrySetResult();
            // Blocks the thread it runs on (the merger's, lent) until the other caller is done.
            if (!release.Wait(HangCeiling))
                throw new TimeoutException("the other caller was never served");
            return where;
        });
        await blocked.Task.WaitAsync(HangCeiling);
        // Queued from another thread while the continuation holds the merger's thread: a stand-in runs it.
        await env.WriteAsync(2, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 2))); }).AsTask().WaitAsync(HangCeiling);
        Assert.Equal(Bytes.Value(2, 2), Read(env, Bytes.Key(2)));
        release.Set();
        Assert.Equal("cairn-merger", await lone.WaitAsync(HangCeiling));
        // The merger's thread takes its work back.
        await env.WriteAsync(3, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 3))); }).AsTask().WaitAsync(HangCeiling);
        Assert.Equal(Bytes.Value(3, 3), Read(env, Bytes.Key(3)));
    }

    [Fact]
    public async Task Closing_while_a_lent_continuation_waits_for_the_closing_thread_drains_and_completes()
    {
        using var dir = new TestDirectory("merger-completion-close");
        var env = StorageEnvironment.Open(Options(dir.Path));
        var gate = new object();
        using var waiting = new ManualResetEventSlim(false);
        var lone = Task.Run(async () =>
        {
            await env.WriteAsync(0, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 1))); }).ConfigureAwait(false);
            await env.WriteAsync(1, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 1))); }).ConfigureAwait(false);
            string? where = Thread.CurrentThread.Name;
            waiting.Set();
            // What the closing side holds while it closes: the continuation (on the lent merger thread) waits for it.
            lock (gate)
                return where;
        });
        ValueTask queued;
        Exception? closeError = null;
        var closer = new Thread(() =>
        {
            try
            {
                env.Dispose();
            }
            catch (Exception e)
            {
                closeError = e;
            }
        });
        lock (gate)
        {
            Assert.True(waiting.Wait(HangCeiling), "the lone caller's continuation never ran");
            // Queued behind the lend, then the close: the close must drain it without waiting for the lent thread.
            queued = env.WriteAsync(2, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 2))); });
            closer.Start();
            Assert.True(closer.Join(HangCeiling), "the close waited for the thread lent to a continuation");
        }
        Assert.Null(closeError);
        await queued.AsTask().WaitAsync(HangCeiling);
        Assert.Equal("cairn-merger", await lone.WaitAsync(HangCeiling));
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(Bytes.Value(2, 2), Read(reopened, Bytes.Key(2)));
    }
}
