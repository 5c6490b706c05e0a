using Cairn.Commit;

namespace Cairn.Tests.Commit;

/// <summary>
/// The group committers' waiting room: one leads, the others sleep until a write carries their entry. A write wakes
/// only its first waiter, which wakes the rest as a tree; these tests hold that every waiter a write passed wakes,
/// however many, and none it did not pass.
/// </summary>
public sealed class DurableWaitersTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private static void WaitUntilWaiting(DurableWaiters waiters, int count)
    {
        var spin = new SpinWait();
        while (waiters.Waiting != count)
            spin.SpinOnce();
    }

    private static (Thread Thread, Func<DurableWaiters.Turn?> Turn) StartWaiter(DurableWaiters waiters, long transactionId)
    {
        DurableWaiters.Turn? turn = null;
        var thread = new Thread(() => turn = waiters.WaitOrLead(transactionId)) { IsBackground = true };
        thread.Start();
        return (thread, () => turn);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(7)]
    [InlineData(40)]
    public void A_write_wakes_every_waiter_it_passed_and_none_other(int passed)
    {
        using var h = new CommitHarness("durable-waiters");
        var waiters = new DurableWaiters(h.States);
        long first = h.States.DurableUpTo + 1;
        Assert.Equal(DurableWaiters.Turn.Lead, waiters.WaitOrLead(first)); // this thread leads
        const int later = 5;
        var sleepers = new List<(Thread Thread, Func<DurableWaiters.Turn?> Turn)>();
        for (int i = 0; i < passed + later; i++)
        {
            sleepers.Add(StartWaiter(waiters, first + 1 + i));
            WaitUntilWaiting(waiters, i + 1); // in arrival order, as committers queue
        }

        h.States.MarkDurable(first + passed); // the write carried the leader's entry and the first `passed` waiters'
        waiters.WakeDurable();
        foreach (var (thread, turn) in sleepers.Take(passed))
        {
            Assert.True(thread.Join(Patience), "a waiter the write passed was not woken");
            Assert.Equal(DurableWaiters.Turn.Durable, turn());
        }
        Assert.Equal(later, waiters.Waiting);
        Assert.All(sleepers.Skip(passed), s => Assert.True(s.Thread.IsAlive));

        h.States.MarkDurable(first + passed + later);
        waiters.WakeDurable();
        foreach (var (thread, turn) in sleepers.Skip(passed))
        {
            Assert.True(thread.Join(Patience), "a waiter the second write passed was not woken");
            Assert.Equal(DurableWaiters.Turn.Durable, turn());
        }
        Assert.Equal(0, waiters.Waiting);
        waiters.EndLead();
        Assert.False(waiters.Leading);
    }

    [Fact]
    public void Waiters_woken_by_one_write_wait_again_and_are_woken_by_the_next()
    {
        // The same threads (and so the same reused waiter objects) through many writes: a tree link left over from one
        // write must not wake a thread in a later one, nor leave one asleep.
        using var h = new CommitHarness("durable-waiters-rounds");
        var waiters = new DurableWaiters(h.States);
        long next = h.States.DurableUpTo + 1;
        Assert.Equal(DurableWaiters.Turn.Lead, waiters.WaitOrLead(next++));
        const int threads = 9, rounds = 50;
        using var barrier = new Barrier(threads + 1);
        var ids = new long[threads];
        var turns = new DurableWaiters.Turn[threads, rounds];
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            for (int r = 0; r < rounds; r++)
            {
                barrier.SignalAndWait(); // the test gave each thread its id for this round
                turns[t, r] = waiters.WaitOrLead(Volatile.Read(ref ids[t]));
                barrier.SignalAndWait();
            }
        }) { IsBackground = true }).ToList();
        workers.ForEach(w => w.Start());
        for (int r = 0; r < rounds; r++)
        {
            for (int t = 0; t < threads; t++)
                Volatile.Write(ref ids[t], next + t);
            barrier.SignalAndWait();
            WaitUntilWaiting(waiters, threads);
            // Two writes: the first passes a round-dependent share of the waiters, the second the rest.
            int split = r % (threads + 1);
            h.States.MarkDurable(next + split - 1);
            waiters.WakeDurable();
            h.States.MarkDurable(next + threads - 1);
            waiters.WakeDurable();
            Assert.True(barrier.SignalAndWait(Patience), $"round {r}: a waiter was not woken");
            next += threads;
        }
        workers.ForEach(w => Assert.True(w.Join(Patience)));
        Assert.All(Enumerable.Range(0, threads), t => Assert.All(Enumerable.Range(0, rounds), r => Assert.Equal(DurableWaiters.Turn.Durable, turns[t, r])));
        waiters.EndLead();
    }
}
