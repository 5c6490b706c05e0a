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
        while (waiters.ForTestingPurposesOnly().Waiting != count)
            spin.SpinOnce();
    }

    private static void AssertWokenAsDurable(IEnumerable<(Thread Thread, Func<DurableWaiters.Turn?> Turn)> waiters, string notWoken)
    {
        foreach (var (thread, turn) in waiters)
        {
            Assert.True(thread.Join(Patience), notWoken);
            Assert.Equal(DurableWaiters.Turn.Durable, turn());
        }
    }

    private static (Thread Thread, Func<DurableWaiters.Turn?> Turn) StartWaiter(DurableWaiters waiters, long transactionId)
    {
        DurableWaiters.Turn? turn = null;
        var thread = new Thread(() => turn = waiters.WaitOrLead(transactionId)) { IsBackground = true };
        thread.Start();
        return (thread, () => turn);
    }

    /// <summary>
    /// A waiter that will be interrupted: its interruption is held at the hook until the test releases it, and what it
    /// threw is kept. The hook holds only the first interruption of <paramref name="interrupted"/>'s thread.
    /// </summary>
    private static (Thread Thread, Func<Exception?> Thrown) StartInterruptedWaiter(DurableWaiters waiters, long transactionId,
        ManualResetEventSlim interrupted, ManualResetEventSlim release)
    {
        Exception? thrown = null;
        var thread = new Thread(() =>
        {
            try
            {
                waiters.WaitOrLead(transactionId);
            }
            catch (Exception e)
            {
                thrown = e;
            }
        }) { IsBackground = true };
        waiters.ForTestingPurposesOnly().Interrupted = () =>
        {
            if (Thread.CurrentThread != thread)
                return;
            interrupted.Set();
            release.Wait();
        };
        thread.Start();
        return (thread, () => thrown);
    }

    [Fact]
    public void A_waiter_interrupted_after_a_write_woke_it_still_wakes_the_waiters_below_it()
    {
        // The woken form a tree: the first waiter a write passed is the only one the writer signals, and it wakes the
        // next two. Here it was interrupted just before the write woke it: the two below must wake all the same.
        using var h = new CommitHarness("durable-waiters-interrupted");
        var waiters = new DurableWaiters(h.States);
        long first = h.States.DurableUpTo + 1;
        Assert.Equal(DurableWaiters.Turn.Lead, waiters.WaitOrLead(first));
        using var interrupted = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var root = StartInterruptedWaiter(waiters, first + 1, interrupted, release);
        WaitUntilWaiting(waiters, 1);
        var below = new[] { StartWaiter(waiters, first + 2) };
        WaitUntilWaiting(waiters, 2);
        below = [.. below, StartWaiter(waiters, first + 3)];
        WaitUntilWaiting(waiters, 3);

        root.Thread.Interrupt();
        Assert.True(interrupted.Wait(Patience), "the first waiter was not interrupted");
        h.States.MarkDurable(first + 3); // the write passed all three; the interrupted one is the tree's root
        waiters.WakeDurable();
        release.Set();

        Assert.True(root.Thread.Join(Patience));
        Assert.IsType<ThreadInterruptedException>(root.Thrown());
        AssertWokenAsDurable(below, "a waiter below the interrupted one was not woken");
        Assert.Equal(0, waiters.ForTestingPurposesOnly().Waiting);
        waiters.EndLead();
        Assert.False(waiters.Leading);
    }

    [Fact]
    public void A_waiter_interrupted_after_the_lead_was_handed_to_it_hands_the_lead_on()
    {
        using var h = new CommitHarness("durable-waiters-interrupted-lead");
        var waiters = new DurableWaiters(h.States);
        long first = h.States.DurableUpTo + 1;
        Assert.Equal(DurableWaiters.Turn.Lead, waiters.WaitOrLead(first));
        using var interrupted = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var heir = StartInterruptedWaiter(waiters, first + 1, interrupted, release);
        WaitUntilWaiting(waiters, 1);
        var next = StartWaiter(waiters, first + 2);
        WaitUntilWaiting(waiters, 2);

        heir.Thread.Interrupt();
        Assert.True(interrupted.Wait(Patience), "the waiter was not interrupted");
        waiters.EndLead(); // the leader stops: the lead goes to the longest waiter, the interrupted one
        release.Set();

        Assert.True(heir.Thread.Join(Patience));
        Assert.IsType<ThreadInterruptedException>(heir.Thrown());
        Assert.True(next.Thread.Join(Patience), "the lead was not handed on past the interrupted waiter");
        Assert.Equal(DurableWaiters.Turn.Lead, next.Turn());
        Assert.True(waiters.Leading);
        waiters.EndLead();
        Assert.False(waiters.Leading);
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
        AssertWokenAsDurable(sleepers.Take(passed), "a waiter the write passed was not woken");
        Assert.Equal(later, waiters.ForTestingPurposesOnly().Waiting);
        Assert.All(sleepers.Skip(passed), s => Assert.True(s.Thread.IsAlive));

        h.States.MarkDurable(first + passed + later);
        waiters.WakeDurable();
        AssertWokenAsDurable(sleepers.Skip(passed), "a waiter the second write passed was not woken");
        Assert.Equal(0, waiters.ForTestingPurposesOnly().Waiting);
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
