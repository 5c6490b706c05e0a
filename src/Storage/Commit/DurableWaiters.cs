using Cairn.Transactions;

namespace Cairn.Commit;

/// <summary>
/// The committers in <see cref="CommitQueue.WaitDurable"/> whose entry is not durable yet, and which of them leads the
/// queue's writes. A committer that finds no leader leads; the others sleep at once on their own signal (no spinning:
/// with dozens of committers on two cores a spinning waiter takes the CPU the write lock's holder needs), and whoever
/// writes their entries wakes them together (<see cref="WakeDurable"/>), instead of one after another through a lock,
/// each woken by the one before. While anyone waits, a leader is at work: a leader that stops hands the lead to the
/// longest waiter (<see cref="EndLead"/>), so nobody sleeps without a write coming.
/// </summary>
internal sealed partial class DurableWaiters(StatePublisher states)
{
    /// <summary>What a committer does after <see cref="WaitOrLead"/>.</summary>
    public enum Turn
    {
        /// <summary>Its transaction is durable.</summary>
        Durable,

        /// <summary>It leads: it writes until its transaction is durable, then calls <see cref="EndLead"/>, whatever happens.</summary>
        Lead,

        /// <summary>Woken by <see cref="WakeAll"/> (the queue failed or closed): it checks why, and may wait again.</summary>
        Recheck,
    }

    private sealed class Waiter
    {
        public readonly ManualResetEventSlim Signal = new(initialState: false, spinCount: 0);
        public long TransactionId;
        public Turn Woken;
        public Waiter? Next;
        // Whom this waiter wakes when it is woken as durable (set under the gate before its own signal, read by its own
        // thread after it): the woken of one write form a binary tree, so the writer signals one thread, not all.
        public Waiter? WakesFirst;
        public Waiter? WakesSecond;
    }

    // One per thread, reused: a thread waits for one commit at a time.
    [ThreadStatic]
    private static Waiter? t_waiter;

    // Guards the waiter list (in arrival order), each queued waiter's fields and _leading. Never held across I/O or a
    // wait; taken after the queue's write lock where both are held.
    private readonly Lock _gate = new();
    private Waiter? _head;
    private Waiter? _tail;
    private bool _leading;
    private int _waiting;
    // The waiters one WakeDurable passed, in arrival order, while it links them into a tree (empty between calls).
    private readonly List<Waiter> _passed = [];

    /// <summary>Whether a committer leads the queue's writes now (one is writing, or about to).</summary>
    public bool Leading => Volatile.Read(ref _leading);

    // Null unless a test asked for hooks: production pays one null check at each hook point.
    private TestHooks? _testingHooks;

    /// <summary>Points where a test holds a waiter, and what it may observe (created on first use; tests only).</summary>
    internal TestHooks ForTestingPurposesOnly() => _testingHooks ??= new(this);

    /// <summary>Whether any committer sleeps waiting for its entry's write.</summary>
    public bool AnyWaiting => Volatile.Read(ref _head) is not null;

    /// <summary>
    /// Returns <see cref="Turn.Durable"/> if transaction <paramref name="transactionId"/> is durable, <see cref="Turn.Lead"/>
    /// if nobody led (the caller leads now), else sleeps until its transaction is durable, the lead is handed to it,
    /// or <see cref="WakeAll"/>.
    /// </summary>
    public Turn WaitOrLead(long transactionId)
    {
        Waiter waiter;
        lock (_gate)
        {
            // Under the gate: a writer moves the watermark before it takes the gate to wake, so this sees it or is woken.
            if (states.DurableUpTo >= transactionId)
                return Turn.Durable;
            if (!_leading)
            {
                _leading = true;
                return Turn.Lead;
            }
            waiter = t_waiter ??= new Waiter();
            waiter.Signal.Reset();
            waiter.TransactionId = transactionId;
            waiter.Woken = Turn.Recheck;
            Append(waiter);
        }
        try
        {
            waiter.Signal.Wait();
        }
        catch
        {
            _testingHooks?.Interrupted?.Invoke();
            // Interrupted: leave the list, or pass on the lead if it was handed here meanwhile.
            bool woken;
            lock (_gate)
                woken = !Remove(waiter);
            if (woken)
            {
                // Its waker may still be walking the chain this waiter is on: the thread takes a fresh one next time.
                t_waiter = null;
                if (waiter.Woken == Turn.Lead)
                    EndLead();
                // Woken as durable: the waiters below it in the tree are this thread's to wake, whatever happens to it.
                WakeBelow(waiter);
            }
            throw;
        }
        var turn = waiter.Woken;
        if (turn == Turn.Durable)
            WakeBelow(waiter);
        return turn;
    }

    /// <summary>A waiter woken as durable wakes its part of the tree first (read before it signals: its thread reuses it).</summary>
    private static void WakeBelow(Waiter waiter)
    {
        var first = waiter.WakesFirst;
        var second = waiter.WakesSecond;
        waiter.WakesFirst = waiter.WakesSecond = null;
        first?.Signal.Set();
        second?.Signal.Set();
    }

    /// <summary>
    /// After the watermark moved: wakes every waiter it passed. The caller signals only the first, which wakes two
    /// more as it wakes, and so on (a binary tree in arrival order): the writer, which holds the queue's write lock
    /// here, is back at its next write after one signal instead of one per waiter. Signalling each waiter in turn took
    /// the writer about 17 µs per waiter on two loaded cores, each woken thread preempting it, 160-200 µs per write
    /// at 16 committing threads (docs/benchmarks.md, "Stop 41").
    /// </summary>
    public void WakeDurable()
    {
        if (!AnyWaiting)
            return;
        long durable = states.DurableUpTo;
        Waiter? root = null;
        lock (_gate)
        {
            Waiter? previous = null;
            for (var waiter = _head; waiter is not null;)
            {
                var next = waiter.Next;
                if (waiter.TransactionId <= durable)
                {
                    Unlink(waiter, previous);
                    waiter.Next = null;
                    waiter.Woken = Turn.Durable;
                    _passed.Add(waiter);
                }
                else
                {
                    previous = waiter;
                }
                waiter = next;
            }
            int count = _passed.Count;
            for (int i = 0; i < count; i++)
            {
                var waiter = _passed[i];
                waiter.WakesFirst = 2 * i + 1 < count ? _passed[2 * i + 1] : null;
                waiter.WakesSecond = 2 * i + 2 < count ? _passed[2 * i + 2] : null;
            }
            if (count > 0)
                root = _passed[0];
            _passed.Clear();
        }
        root?.Signal.Set();
    }

    /// <summary>The leader stops: the longest waiter leads from here on, or nobody.</summary>
    public void EndLead()
    {
        Waiter? next;
        lock (_gate)
        {
            next = _head;
            if (next is null)
            {
                _leading = false;
                return;
            }
            Unlink(next, previous: null);
            next.Woken = Turn.Lead;
            next.Next = null;
        }
        next.Signal.Set();
    }

    /// <summary>The queue failed or closed: every waiter wakes to find out (the leader, if any, goes on leading).</summary>
    public void WakeAll()
    {
        Waiter? woken;
        lock (_gate)
        {
            woken = _head;
            _head = _tail = null;
            _waiting = 0;
            for (var waiter = woken; waiter is not null; waiter = waiter.Next)
                waiter.Woken = Turn.Recheck;
        }
        Signal(woken);
    }

    private static void Signal(Waiter? chain)
    {
        while (chain is not null)
        {
            // Read the link first: once signalled, the waiter's thread may reuse it.
            var next = chain.Next;
            chain.Signal.Set();
            chain = next;
        }
    }

    private void Append(Waiter waiter)
    {
        waiter.Next = null;
        if (_tail is null)
            _head = waiter;
        else
            _tail.Next = waiter;
        _tail = waiter;
        _waiting++;
    }

    /// <summary>Takes <paramref name="waiter"/> out of the list if it is there; false if it was not (it was woken).</summary>
    private bool Remove(Waiter waiter)
    {
        Waiter? previous = null;
        for (var current = _head; current is not null; previous = current, current = current.Next)
        {
            if (ReferenceEquals(current, waiter))
            {
                Unlink(current, previous);
                return true;
            }
        }
        return false;
    }

    private void Unlink(Waiter waiter, Waiter? previous)
    {
        if (previous is null)
            _head = waiter.Next;
        else
            previous.Next = waiter.Next;
        if (ReferenceEquals(_tail, waiter))
            _tail = previous;
        _waiting--;
    }
}
