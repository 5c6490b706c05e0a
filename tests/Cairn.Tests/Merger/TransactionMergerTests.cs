using Cairn.Reports;
using Cairn.Tests.Support;
using static Cairn.Tests.Merger.MergerTestSupport;

namespace Cairn.Tests.Merger;

/// <summary>
/// The transaction merger through its public API: many callers' operations merged into durable
/// transactions, results to the right caller, commit order, failures that stay alone, cancellation,
/// back-pressure and closing with work queued.
/// </summary>
public sealed class TransactionMergerTests
{
    [Fact]
    public async Task Concurrent_callers_each_see_their_own_result_and_every_effect_is_present_once()
    {
        using var dir = new TestDirectory("merger-concurrent");
        const int callers = 16, perCaller = 150;
        long[][] committedAs = new long[callers][];
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
        {
            var tasks = Enumerable.Range(0, callers).Select(c => Task.Run(async () =>
            {
                committedAs[c] = new long[perCaller];
                for (int i = 0; i < perCaller; i++)
                {
                    long id = c * 1_000_000L + i;
                    var request = new PutRequest(Bytes.Key(id), Bytes.Value(id, 60));
                    long transaction = await env.WriteAsync(request, static (tx, r) => Put(tx, r));
                    Assert.NotEqual("cairn-merger", Thread.CurrentThread.Name); // continuations never run on the merger
                    // Durable order: released for transaction N means N (and all before it) is committed.
                    Assert.True(env.LastCommittedTransactionId >= transaction,
                        $"released for transaction {transaction} while only {env.LastCommittedTransactionId} is committed");
                    committedAs[c][i] = transaction;
                }
            })).ToArray();
            await Task.WhenAll(tasks);

            Assert.Equal(callers * perCaller, Count(env));
            var stats = env.MergerStatistics.Snapshot();
            Assert.Equal(callers * perCaller, stats.Operations);
            Assert.True(stats.Transactions < stats.Operations, $"no merging: {stats.Transactions} transactions for {stats.Operations} operations");
            Assert.Equal(Math.Min(stats.Transactions, 1024), stats.RecentBatches.Count);
            Assert.All(stats.RecentBatches, b => Assert.InRange(b.Operations, 1, callers));
            Assert.Equal(stats.RecentBatches.OrderBy(b => b.TransactionId).Select(b => b.TransactionId), stats.RecentBatches.Select(b => b.TransactionId));
            // Joined with the I/O statistics: every recent merged transaction was one journal write of one transaction.
            string report = stats.Format(env.IoStats);
            Assert.Contains($"{callers * perCaller:N0} operations in {stats.Transactions:N0} transactions", report);
            Assert.Contains("1.0 transactions and", report);
            env.Verify();
        }
        // Each caller's own operations ran in the order it issued them.
        foreach (var ids in committedAs)
            for (int i = 1; i < ids.Length; i++)
                Assert.True(ids[i] > ids[i - 1]);

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        for (int c = 0; c < callers; c++)
            for (int i = 0; i < perCaller; i++)
            {
                long id = c * 1_000_000L + i;
                Assert.Equal(Bytes.Value(id, 60), Read(reopened, Bytes.Key(id)));
            }
    }

    [Fact]
    public async Task An_operation_that_throws_fails_alone_and_leaves_no_trace()
    {
        using var dir = new TestDirectory("merger-throw");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;
        // Queued behind the blocker, so they all run in one batch with the throwing ones among them.
        var tasks = new List<(int I, Task Task)>();
        for (int i = 0; i < 40; i++)
        {
            var request = new PutRequest(Bytes.Key(i), Bytes.Value(i, 80));
            tasks.Add((i, i % 7 == 3
                ? env.WriteAsync(request, static (tx, r) =>
                {
                    tx.CreateTree(TreeName).Put(r.Key, r.Value);
                    throw new InvalidOperationException("operation failed on purpose");
                }).AsTask()
                : env.WriteAsync(request, static (tx, r) => { Put(tx, r); }).AsTask()));
        }
        release.Set();
        await blocker;
        foreach (var (i, task) in tasks)
        {
            if (i % 7 == 3)
            {
                var error = await Assert.ThrowsAsync<InvalidOperationException>(() => task);
                Assert.Equal("operation failed on purpose", error.Message);
                Assert.Null(Read(env, Bytes.Key(i)));
            }
            else
            {
                await task;
                Assert.Equal(Bytes.Value(i, 80), Read(env, Bytes.Key(i)));
            }
        }
        var stats = env.MergerStatistics.Snapshot();
        Assert.Equal(6, stats.FailedOperations);
        Assert.True(stats.Reruns >= 1);
        env.Verify();
    }

    [Fact]
    public async Task An_operation_may_not_commit_or_dispose_the_merged_transaction()
    {
        using var dir = new TestDirectory("merger-misuse");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await env.WriteAsync(0, static (tx, _) => tx.Commit()));
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await env.WriteAsync(0, static (tx, _) => tx.Dispose()));
        await env.WriteAsync(new PutRequest(Bytes.Key(1), Bytes.Value(1, 10)), static (tx, r) => { Put(tx, r); });
        Assert.Equal(Bytes.Value(1, 10), Read(env, Bytes.Key(1)));
    }

    [Fact]
    public async Task Cancellation_before_the_merger_takes_an_operation_removes_it()
    {
        using var dir = new TestDirectory("merger-cancel");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;
        using var cts = new CancellationTokenSource();
        var cancelled = env.WriteAsync(new PutRequest(Bytes.Key(7), Bytes.Value(7, 10)), static (tx, r) => { Put(tx, r); }, cts.Token).AsTask();
        var kept = env.WriteAsync(new PutRequest(Bytes.Key(8), Bytes.Value(8, 10)), static (tx, r) => { Put(tx, r); }).AsTask();
        cts.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled);
        release.Set();
        await blocker;
        await kept;
        Assert.Null(Read(env, Bytes.Key(7)));
        Assert.Equal(Bytes.Value(8, 10), Read(env, Bytes.Key(8)));
        Assert.Equal(1, env.MergerStatistics.Snapshot().CancelledOperations);

        // Already cancelled: never queued at all.
        await Assert.ThrowsAnyAsync<OperationCanceledException>(
            async () => await env.WriteAsync(0, static (_, _) => { }, new CancellationToken(canceled: true)));
    }

    [Fact]
    public async Task A_full_queue_makes_callers_wait_and_then_fail_clearly()
    {
        using var dir = new TestDirectory("merger-backpressure");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path)
        {
            MergerMaxQueuedOperations = 4,
            MergerQueueTimeout = TimeSpan.FromMilliseconds(200),
        });
        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;
        var queued = Enumerable.Range(0, 4)
            .Select(i => env.WriteAsync(new PutRequest(Bytes.Key(i), Bytes.Value(i, 10)), static (tx, r) => { Put(tx, r); }).AsTask())
            .ToArray();
        var error = await Assert.ThrowsAsync<MergerQueueFullException>(
            async () => await env.WriteAsync(new PutRequest(Bytes.Key(99), Bytes.Value(99, 10)), static (tx, r) => { Put(tx, r); }));
        Assert.Equal(4, error.Capacity);

        // A caller that waits for room gets in once the merger takes what is queued.
        var waiting = env.WriteAsync(new PutRequest(Bytes.Key(5), Bytes.Value(5, 10)), static (tx, r) => { Put(tx, r); }).AsTask();
        release.Set();
        await blocker;
        await Task.WhenAll(queued);
        await waiting;
        Assert.Equal(5, Enumerable.Range(0, 6).Count(i => Read(env, Bytes.Key(i)) is not null));
        Assert.Null(Read(env, Bytes.Key(99)));
    }

    [Fact]
    public async Task Dispose_with_operations_queued_commits_them_all_and_then_refuses_more()
    {
        using var dir = new TestDirectory("merger-dispose");
        var env = StorageEnvironment.Open(Options(dir.Path));
        using var release = new ManualResetEventSlim();
        var (running, blocker) = Block(env, release);
        await running;
        var queued = Enumerable.Range(0, 100)
            .Select(i => env.WriteAsync(new PutRequest(Bytes.Key(i), Bytes.Value(i, 30)), static (tx, r) => { Put(tx, r); }).AsTask())
            .ToArray();
        var disposing = Task.Run(env.Dispose);
        await Task.Delay(50);
        Assert.False(disposing.IsCompleted, "Dispose returned while the merger still held queued operations");
        release.Set();
        await disposing.WaitAsync(TimeSpan.FromSeconds(60));
        await blocker;
        await Task.WhenAll(queued);
        Assert.Throws<ObjectDisposedException>(() => { _ = env.WriteAsync(0, static (_, _) => { }); });

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        for (int i = 0; i < 100; i++)
            Assert.Equal(Bytes.Value(i, 30), Read(reopened, Bytes.Key(i)));
    }

    [Fact]
    public async Task DisposeAsync_drains_the_queue()
    {
        using var dir = new TestDirectory("merger-dispose-async");
        var env = StorageEnvironment.Open(Options(dir.Path));
        var queued = Enumerable.Range(0, 200)
            .Select(i => env.WriteAsync(new PutRequest(Bytes.Key(i), Bytes.Value(i, 30)), static (tx, r) => { Put(tx, r); }).AsTask())
            .ToArray();
        await env.DisposeAsync();
        await Task.WhenAll(queued);
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(200, Count(reopened));
    }

    [Fact]
    public async Task Merged_and_explicit_write_transactions_take_turns()
    {
        using var dir = new TestDirectory("merger-mixed");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        var merged = Task.Run(async () =>
        {
            for (int i = 0; i < 300; i++)
                await env.WriteAsync(new PutRequest(Bytes.Key(i), Bytes.Value(i, 20)), static (tx, r) => { Put(tx, r); });
        });
        for (int i = 1000; i < 1100; i++)
        {
            using var tx = env.BeginWrite(TimeSpan.FromSeconds(30));
            tx.CreateTree(TreeName).Put(Bytes.Key(i), Bytes.Value(i, 20));
            tx.Commit();
        }
        await merged;
        Assert.Equal(400, Count(env));
        env.Verify();
    }

    [Fact]
    public async Task Operations_with_large_values_span_many_transactions_and_survive_a_crash()
    {
        using var dir = new TestDirectory("merger-large");
        var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { MergerMaxTransactionBytes = 256 << 10 });
        var tasks = Enumerable.Range(0, 8).Select(c => Task.Run(async () =>
        {
            for (int i = 0; i < 20; i++)
            {
                long id = c * 100 + i;
                await env.WriteAsync(new PutRequest(Bytes.Key(id), Bytes.Value(id, 20_000)), static (tx, r) => { Put(tx, r); });
            }
        })).ToArray();
        await Task.WhenAll(tasks);
        var stats = env.MergerStatistics.Snapshot();
        Assert.True(stats.Transactions > 1);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        for (int c = 0; c < 8; c++)
            for (int i = 0; i < 20; i++)
                Assert.Equal(Bytes.Value(c * 100 + i, 20_000), Read(reopened, Bytes.Key(c * 100 + i)));
        reopened.Verify();
    }

    [Fact]
    public async Task Cancellations_racing_the_merger_either_remove_an_operation_or_leave_it_whole()
    {
        using var dir = new TestDirectory("merger-cancel-race");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        const int callers = 8, perCaller = 400;
        var outcomes = new bool?[callers, perCaller]; // true: committed, false: cancelled
        var tasks = Enumerable.Range(0, callers).Select(c => Task.Run(async () =>
        {
            var random = new Random(c);
            for (int i = 0; i < perCaller; i++)
            {
                using var cts = new CancellationTokenSource();
                long id = c * 10_000 + i;
                var write = env.WriteAsync(new PutRequest(Bytes.Key(id), Bytes.Value(id, 30)), static (tx, r) => { Put(tx, r); }, cts.Token).AsTask();
                switch (random.Next(3))
                {
                    case 0:
                        cts.Cancel();
                        break;
                    case 1:
                        Thread.SpinWait(random.Next(1, 2_000));
                        cts.Cancel();
                        break;
                }
                try
                {
                    await write;
                    outcomes[c, i] = true;
                }
                catch (OperationCanceledException)
                {
                    outcomes[c, i] = false;
                }
            }
        })).ToArray();
        await Task.WhenAll(tasks);

        int committed = 0, cancelled = 0;
        for (int c = 0; c < callers; c++)
            for (int i = 0; i < perCaller; i++)
            {
                long id = c * 10_000 + i;
                var value = Read(env, Bytes.Key(id));
                if (outcomes[c, i] == true)
                {
                    Assert.Equal(Bytes.Value(id, 30), value);
                    committed++;
                }
                else
                {
                    Assert.Null(value);
                    cancelled++;
                }
            }
        Assert.True(committed > 0 && cancelled > 0, $"{committed} committed, {cancelled} cancelled: the race was not exercised");
        // A cancelled operation is counted when the merger reaches its queue entry, which may come after its caller moved on.
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (env.MergerStatistics.Snapshot().CancelledOperations < cancelled && DateTime.UtcNow < deadline)
            await Task.Delay(5);
        Assert.Equal(cancelled, env.MergerStatistics.Snapshot().CancelledOperations);
        env.Verify();
    }

    [Fact]
    public async Task Dispose_racing_many_callers_commits_what_it_took_and_refuses_the_rest()
    {
        using var dir = new TestDirectory("merger-dispose-race");
        var env = StorageEnvironment.Open(Options(dir.Path));
        const int callers = 8;
        var committed = new List<long>[callers];
        var pending = new List<(long Id, Task Task)>[callers];
        using var started = new CountdownEvent(callers);
        // Threads of their own: the loops block, and on the thread pool they would starve the completions.
        var loops = Enumerable.Range(0, callers).Select(c => Task.Factory.StartNew(() =>
        {
            committed[c] = [];
            pending[c] = [];
            started.Signal();
            for (long i = 0; ; i++)
            {
                long id = c * 1_000_000L + i;
                try
                {
                    // Not awaited one by one: several of each caller's operations are queued when Dispose comes.
                    pending[c].Add((id, env.WriteAsync(new PutRequest(Bytes.Key(id), Bytes.Value(id, 20)), static (tx, r) => { Put(tx, r); }).AsTask()));
                }
                catch (ObjectDisposedException)
                {
                    return;
                }
                if (i % 16 == 15)
                    Task.WaitAll(pending[c].Skip(pending[c].Count - 16).Select(p => p.Task).ToArray());
            }
        }, TaskCreationOptions.LongRunning)).ToArray();
        started.Wait();
        await Task.Delay(100);
        await Task.Run(env.Dispose).WaitAsync(TimeSpan.FromSeconds(60));
        await Task.WhenAll(loops).WaitAsync(TimeSpan.FromSeconds(60));

        long total = 0;
        for (int c = 0; c < callers; c++)
            foreach (var (id, task) in pending[c])
            {
                // Every call that was taken completes: queued before Dispose, it was committed.
                await task.WaitAsync(TimeSpan.FromSeconds(60));
                committed[c].Add(id);
                total++;
            }
        Assert.True(total > 0);
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(total, Count(reopened));
        using var tx = reopened.BeginRead();
        var tree = tx.OpenTree(TreeName);
        foreach (var ids in committed)
            foreach (long id in ids)
                Assert.True(tree.TryGet(Bytes.Key(id), out var value) && value.SequenceEqual(Bytes.Value(id, 20)), $"operation {id} is missing or wrong");
    }
}
