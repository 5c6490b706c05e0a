namespace Cairn.Commit;

/// <summary>
/// A mutual-exclusion lock that hands itself to the longest waiter on release, and whose waiters sleep at once
/// instead of spinning. The write lock is contended by up to hundreds of committing threads on machines with two
/// cores: a spinning waiter (<see cref="SemaphoreSlim"/>, <see cref="Lock"/>) takes the CPU the holder needs to
/// finish its transaction, and a profile of 16 committing threads showed more time in <c>sched_yield</c> and
/// context switches than in the transactions themselves (docs/benchmarks.md, group commit). Handing the lock
/// over in arrival order also keeps a waiting <c>BeginWrite</c> from being overtaken indefinitely.
/// </summary>
/// <remarks>Not reentrant; any thread may release it (the holder's transaction may end on another thread).</remarks>
internal sealed class HandoffLock
{
    // Guards _held and the waiter queue (_head, _tail, each waiter's links and Granted flag: written only under it, read
    // by its own signalled waiter without it); never held while waiting.
    private readonly Lock _gate = new();
    private bool _held;
    private Waiter? _head;
    private Waiter? _tail;
    private int _waiting;

    // One per thread, reused: a thread waits for at most one lock of this kind at a time (the write lock).
    [ThreadStatic]
    private static Waiter? t_waiter;

    private sealed class Waiter
    {
        public readonly ManualResetEventSlim Signal = new(initialState: false, spinCount: 0);
        public Waiter? Next;
        public Waiter? Previous;
        public bool Granted;
        public bool Queued;
    }

    // Null unless a test asked for hooks: production pays one null check at each hook point.
    private HandoffLockTestHooks? _testingHooks;

    /// <summary>Points where a test holds a waiter or a releaser (created on first use; tests only).</summary>
    internal HandoffLockTestHooks ForTestingPurposesOnly() => _testingHooks ??= new();

    /// <summary>Threads waiting for the lock now.</summary>
    public int Waiting => Volatile.Read(ref _waiting);

    /// <summary>Takes the lock, waiting up to <paramref name="timeout"/> (infinite: <see cref="Timeout.InfiniteTimeSpan"/>); false if it timed out.</summary>
    public bool TryEnter(TimeSpan timeout)
    {
        Waiter waiter;
        lock (_gate)
        {
            if (!_held)
            {
                _held = true;
                return true;
            }
            if (timeout == TimeSpan.Zero)
                return false;
            waiter = t_waiter ??= new Waiter();
            waiter.Granted = false;
            waiter.Signal.Reset();
            Append(waiter);
        }
        long deadline = timeout > TimeSpan.Zero ? Environment.TickCount64 + (long)Math.Ceiling(timeout.TotalMilliseconds) : -1;
        var wait = timeout;
        while (true)
        {
            bool signalled;
            try
            {
                _testingHooks?.BeforeWait?.Invoke();
                signalled = waiter.Signal.Wait(wait);
            }
            catch
            {
                // Interrupted: give the lock on if it was handed here meanwhile, or leave the queue.
                if (!Withdraw(waiter))
                    Exit();
                throw;
            }
            if (!signalled)
                return !Withdraw(waiter);
            // The signal is a grant only if this wait was granted. A releaser signals after leaving the gate, so the
            // signal of a grant that raced an earlier wait's timeout (that wait took the lock all the same) can
            // arrive during this thread's next wait, while another thread holds the lock.
            if (Volatile.Read(ref waiter.Granted))
                return true;
            lock (_gate)
            {
                if (waiter.Granted)
                    return true;
                waiter.Signal.Reset(); // under the gate: a grant from here on signals after this
            }
            wait = Remaining(deadline);
        }
    }

    /// <summary>What is left of a wait that ends at <paramref name="deadline"/> (<see cref="Environment.TickCount64"/>; -1: never).</summary>
    private static TimeSpan Remaining(long deadline)
        => deadline < 0 ? Timeout.InfiniteTimeSpan : TimeSpan.FromMilliseconds(Math.Max(0, deadline - Environment.TickCount64));

    /// <summary>After a wait ended without the signal: leaves the queue and returns true, or returns false if the lock was granted meanwhile.</summary>
    private bool Withdraw(Waiter waiter)
    {
        lock (_gate)
        {
            // Granted between the timeout and here: the lock is this thread's now.
            if (waiter.Granted)
                return false;
            Remove(waiter);
            return true;
        }
    }

    /// <summary>Releases the lock: the longest waiter holds it from here on, or nobody.</summary>
    public void Exit()
    {
        Waiter? next;
        lock (_gate)
        {
            if (!_held)
                throw new SynchronizationLockException("the lock is not held");
            next = _head;
            if (next is null)
            {
                _held = false;
                return;
            }
            Remove(next);
            next.Granted = true;
        }
        _testingHooks?.Granting?.Invoke();
        next.Signal.Set();
    }

    private void Append(Waiter waiter)
    {
        waiter.Previous = _tail;
        waiter.Next = null;
        if (_tail is null)
            _head = waiter;
        else
            _tail.Next = waiter;
        _tail = waiter;
        waiter.Queued = true;
        _waiting++;
    }

    private void Remove(Waiter waiter)
    {
        if (!waiter.Queued)
            return;
        if (waiter.Previous is null)
            _head = waiter.Next;
        else
            waiter.Previous.Next = waiter.Next;
        if (waiter.Next is null)
            _tail = waiter.Previous;
        else
            waiter.Next.Previous = waiter.Previous;
        waiter.Next = waiter.Previous = null;
        waiter.Queued = false;
        _waiting--;
    }
}
