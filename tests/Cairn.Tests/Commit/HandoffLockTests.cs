using Cairn.Commit;

namespace Cairn.Tests.Commit;

/// <summary>The write lock's primitive: mutual exclusion, hand-over in arrival order, timeouts that leave no trace.</summary>
public class HandoffLockTests
{
    private static void WaitUntilWaiting(HandoffLock gate, int count)
    {
        var spin = new SpinWait();
        while (gate.Waiting != count)
            spin.SpinOnce();
    }

    private static Thread Start(Action action)
    {
        var thread = new Thread(() => action()) { IsBackground = true };
        thread.Start();
        return thread;
    }

    [Fact]
    public void Release_hands_the_lock_to_the_waiters_in_arrival_order()
    {
        var gate = new HandoffLock();
        Assert.True(gate.TryEnter(TimeSpan.Zero));
        var order = new List<int>();
        var threads = new List<Thread>();
        for (int i = 0; i < 4; i++)
        {
            int id = i;
            threads.Add(Start(() =>
            {
                gate.TryEnter(Timeout.InfiniteTimeSpan); // an infinite wait returns only with the lock
                order.Add(id); // under the lock
                gate.Exit();
            }));
            WaitUntilWaiting(gate, i + 1); // the next one arrives only after this one queued
        }
        gate.Exit();
        foreach (var thread in threads)
            thread.Join();
        Assert.Equal([0, 1, 2, 3], order);
        Assert.Equal(0, gate.Waiting);
        Assert.True(gate.TryEnter(TimeSpan.Zero));
    }

    [Fact]
    public void A_waiter_that_times_out_leaves_the_queue_and_the_lock_stays_with_its_holder()
    {
        var gate = new HandoffLock();
        Assert.True(gate.TryEnter(TimeSpan.Zero));
        bool entered = true;
        var waiter = Start(() => entered = gate.TryEnter(TimeSpan.FromMilliseconds(20)));
        waiter.Join();
        Assert.False(entered);
        Assert.Equal(0, gate.Waiting);
        Assert.False(gate.TryEnter(TimeSpan.Zero)); // still held by this thread
        gate.Exit();
        Assert.True(gate.TryEnter(TimeSpan.Zero)); // and free once released: the timed-out waiter was not handed it
        gate.Exit();
    }

    [Fact]
    public void A_timed_out_waiter_is_skipped_and_the_next_one_gets_the_lock()
    {
        var gate = new HandoffLock();
        Assert.True(gate.TryEnter(TimeSpan.Zero));
        bool firstEntered = true;
        var first = Start(() => firstEntered = gate.TryEnter(TimeSpan.FromMilliseconds(1)));
        first.Join();
        var got = new ManualResetEventSlim();
        var second = Start(() =>
        {
            gate.TryEnter(Timeout.InfiniteTimeSpan);
            got.Set();
            gate.Exit();
        });
        WaitUntilWaiting(gate, 1);
        gate.Exit();
        second.Join();
        Assert.False(firstEntered);
        Assert.True(got.IsSet);
        Assert.True(gate.TryEnter(TimeSpan.Zero));
    }

    [Fact]
    public void Only_one_thread_holds_it_at_a_time()
    {
        var gate = new HandoffLock();
        long counter = 0;
        int inside = 0, overlaps = 0;
        var threads = Enumerable.Range(0, 8).Select(_ => Start(() =>
        {
            for (int i = 0; i < 2_000; i++)
            {
                gate.TryEnter(Timeout.InfiniteTimeSpan);
                if (Interlocked.Increment(ref inside) != 1)
                    Interlocked.Increment(ref overlaps);
                counter++; // not atomic: only the lock keeps it exact
                Interlocked.Decrement(ref inside);
                gate.Exit();
            }
        })).ToList();
        foreach (var thread in threads)
            thread.Join();
        Assert.Equal(0, overlaps);
        Assert.Equal(8 * 2_000, counter);
        Assert.Equal(0, gate.Waiting);
    }

    [Fact]
    public void Releasing_a_lock_nobody_holds_throws()
    {
        var gate = new HandoffLock();
        Assert.Throws<SynchronizationLockException>(gate.Exit);
    }
}
