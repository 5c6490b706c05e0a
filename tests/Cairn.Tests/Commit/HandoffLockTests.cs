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

    /// <summary>
    /// A releaser hands the lock to a waiter under the gate and signals it after leaving the gate. If the waiter's
    /// wait times out in between, it still gets the lock (it was granted), and the signal is still on its way: it
    /// must not wake the same thread's next wait as a grant, while another thread holds the lock.
    /// </summary>
    [Fact]
    public void A_late_signal_of_a_grant_that_raced_a_timeout_does_not_wake_the_next_wait_as_a_grant()
    {
        var gate = new HandoffLock();
        var hooks = gate.ForTestingPurposesOnly();
        using var granted = new ManualResetEventSlim();
        using var signalGoes = new ManualResetEventSlim();
        using var firstDone = new ManualResetEventSlim();
        using var goSecond = new ManualResetEventSlim();
        using var decided = new ManualResetEventSlim();
        int grants = 0, waits = 0;
        hooks.Granting = () =>
        {
            if (Interlocked.Increment(ref grants) != 1)
                return;
            granted.Set();
            signalGoes.Wait(); // the first grant's signal is held until the waiter has been through a second wait
        };
        hooks.BeforeWait = () =>
        {
            int wait = Interlocked.Increment(ref waits);
            if (wait == 1)
                granted.Wait(); // the first wait starts only once it was granted, so it times out granted
            else if (wait == 3)
                decided.Set(); // woken by the late signal, and going back to sleep: the lock was not granted
        };
        bool firstEntered = false, enteredWhileHeld = false;
        bool otherHolds = false;
        Assert.True(gate.TryEnter(TimeSpan.Zero));
        var waiter = Start(() =>
        {
            // Granted before its wait times out, but not signalled: the lock is its all the same.
            firstEntered = gate.TryEnter(TimeSpan.FromMilliseconds(20));
            gate.Exit();
            firstDone.Set();
            goSecond.Wait();
            // The next wait, while another thread holds the lock: only that thread's release may end it.
            gate.TryEnter(Timeout.InfiniteTimeSpan);
            enteredWhileHeld = Volatile.Read(ref otherHolds);
            decided.Set();
            gate.Exit();
        });

        WaitUntilWaiting(gate, 1);
        var releaser = Start(gate.Exit); // hands the lock to the waiter, and is held before signalling it
        granted.Wait();
        firstDone.Wait();
        Assert.True(firstEntered);
        Assert.True(gate.TryEnter(TimeSpan.Zero)); // another holder
        Volatile.Write(ref otherHolds, true);
        goSecond.Set();
        WaitUntilWaiting(gate, 1);
        signalGoes.Set(); // the late signal of the first grant
        releaser.Join();
        decided.Wait(); // the waiter either took the late signal for a grant or went back to sleep
        Volatile.Write(ref otherHolds, false);
        gate.Exit();
        waiter.Join();

        Assert.False(enteredWhileHeld, "the waiter entered while another thread held the lock");
        Assert.Equal(0, gate.Waiting);
        Assert.True(gate.TryEnter(TimeSpan.Zero));
    }

    [Fact]
    public void Releasing_a_lock_nobody_holds_throws()
    {
        var gate = new HandoffLock();
        Assert.Throws<SynchronizationLockException>(gate.Exit);
    }
}
