namespace Cairn.Merger;

/// <summary>
/// The merger's role and its lending: the lone asynchronous caller's continuation on the merger's thread, the stand-in
/// that takes the merger's work while a continuation lasts, and the stop, which must not wait for a lent thread.
/// </summary>
internal sealed partial class TransactionMerger<TTransaction>
{
    // Who does the merger's work (runs chains). The merger's thread holds the role for its whole life except while it is
    // lent to a lone caller's continuation; then a stand-in on the thread pool may take it (operations queued and the
    // continuation lasting), and so may a Stop (which then drains the queue itself and keeps the role).
    private const int RoleFree = 0;
    private const int RoleMerger = 1;
    private const int RoleStandIn = 2;
    private const int RoleStopper = 3;
    // How long operations queued during a lend wait for the continuation to give the merger's thread back before a
    // stand-in runs them: a continuation normally returns at its next await, within microseconds; this bounds what
    // one that blocks or computes costs the others.
    private static readonly TimeSpan LendWatchdog = TimeSpan.FromMilliseconds(2);
    // Waits for the role are bounded and the role read again: two waiters (the lent thread back, a stop) each reset the
    // event before they look, so one's reset may swallow the set meant for the other.
    private static readonly TimeSpan RoleRecheck = TimeSpan.FromMilliseconds(1);

    private int _role = RoleMerger;
    // The thread holding the role (0 while none does), for IsMergerThread.
    private volatile int _roleThread;
    // Set by the role holder's lone batch (Release), taken by the merger's thread after the chain: the caller to lend to.
    private MergedOperation<TTransaction>? _lendTo;
    // Set by a stand-in or stopper when it lets the role go (a stopper when it is done): the lent thread and a stop wait on it.
    // Never disposed: a lent thread may still be waking from it after Dispose, and it holds no handle unless one is asked for.
    private readonly ManualResetEventSlim _roleReleased = new(false);
    // One timer for the merger's life, armed at most once per LendWatchdog (an operation queued during a lend).
    private readonly Timer? _watchdog;
    private int _watchdogArmed;
    private long _armedLend;
    // A stop that took the role has drained the queue.
    private volatile bool _stopperDrained;

    /// <summary>
    /// Runs a lone caller's continuation on this thread (the merger's), its chain ended: no lock is held, so the
    /// continuation may begin a write transaction or write again. It normally runs to its next await (its next
    /// <c>WriteAsync</c>, which this thread then runs at once, with no thread woken on either side); the role is free
    /// meanwhile, and what is queued in the lend waits at most <see cref="LendWatchdog"/> before a stand-in on the thread
    /// pool runs it (at once for a blocking <c>Write</c> from the continuation itself), so a continuation that blocks or
    /// computes never holds up the others for longer, nor waits for this thread. Not when others are queued already or the
    /// merger is stopping (a stop may be waiting for this thread): the caller then completes on the thread pool. Returns
    /// false when a stop took the role during the lend (this thread then ends).
    /// </summary>
    private bool Lend(MergedOperation<TTransaction> caller)
    {
        Queue.BeginLend();
        _roleThread = 0;
        // A full fence: the lend and the free role are visible before the queue and the stop flag are read.
        Interlocked.Exchange(ref _role, RoleFree);
        if (!Queue.IsEmpty || Queue.IsStopping)
        {
            Queue.EndLend();
            bool back = TakeRoleBack();
            caller.Succeed();
            return back;
        }
        try
        {
            caller.SucceedHere();
        }
        finally
        {
            Queue.EndLend();
        }
        return TakeRoleBack();
    }

    /// <summary>After a lend: the role again, once a stand-in has let it go; false if a stop holds it.</summary>
    private bool TakeRoleBack()
    {
        while (true)
        {
            _roleReleased.Reset();
            int role = Interlocked.CompareExchange(ref _role, RoleMerger, RoleFree);
            if (role == RoleFree)
            {
                _roleThread = Environment.CurrentManagedThreadId;
                return true;
            }
            if (role == RoleStopper)
                return false;
            _roleReleased.Wait(RoleRecheck);
        }
    }

    /// <summary>The queue's report of an operation queued during a lend (see <see cref="Lend"/>).</summary>
    private void OnQueuedWhileLent(bool blockingOnLender)
    {
        if (blockingOnLender)
        {
            StartStandIn();
            return;
        }
        if (Interlocked.Exchange(ref _watchdogArmed, 1) != 0)
            return;
        Volatile.Write(ref _armedLend, Queue.LendNumber);
        try
        {
            _watchdog!.Change(LendWatchdog, Timeout.InfiniteTimeSpan);
        }
        catch (ObjectDisposedException)
        {
            // Closed meanwhile: the stop drains the queue.
        }
    }

    /// <summary>On a thread-pool thread, <see cref="LendWatchdog"/> after an operation was queued during a lend.</summary>
    private void OnWatchdog()
    {
        long armed = Volatile.Read(ref _armedLend);
        Volatile.Write(ref _watchdogArmed, 0);
        if (!Queue.IsLent || Queue.IsEmpty)
            return;
        if (Queue.LendNumber == armed)
            StartStandIn(); // the same lend all along: the continuation is taking its time
        else
            OnQueuedWhileLent(blockingOnLender: false); // a later lend: it gets its own time
    }

    private void StartStandIn() => ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);

    /// <summary>A stand-in: while the merger's thread is lent and operations wait, runs them here (never lending itself).</summary>
    void IThreadPoolWorkItem.Execute()
    {
        while (Queue.IsLent && !Queue.IsEmpty)
        {
            if (Interlocked.CompareExchange(ref _role, RoleStandIn, RoleFree) != RoleFree)
                return; // the lent thread is back, or another stand-in or a stop has the role
            _roleThread = Environment.CurrentManagedThreadId;
            try
            {
                while (!Queue.IsEmpty)
                    RunChain();
            }
            finally
            {
                _roleThread = 0;
                Interlocked.Exchange(ref _role, RoleFree);
                _roleReleased.Set();
            }
            // Looked at again: an operation queued just before the role went found it held and started no one.
        }
    }

    /// <summary>
    /// Whether the batch's caller may have its continuation on this thread after the chain: the merger's own thread
    /// (not a stand-in or a stop), one asynchronous operation (a blocking caller is woken where it waits), no stop,
    /// and scratch memory under its limit (over it, the chain goes on to wait for the flusher).
    /// </summary>
    private bool CanLend(CommitSlot<TTransaction> batch)
        => _settings.LendToLoneCaller
            && batch.Operations.Count == 1
            && batch.Operations[0].Waiter is null
            && Thread.CurrentThread == _thread
            && Volatile.Read(ref _role) == RoleMerger
            && !Queue.IsStopping
            && !_pipeline.ScratchOverLimit;

    /// <summary>
    /// Stops taking operations, runs and commits every one already queued (or fails them, if the
    /// environment has failed), and ends the threads.
    /// </summary>
    /// <remarks>
    /// While the merger's thread is lent to a caller's continuation (which may be waiting for the very thread that
    /// stops it), the stop does not wait for that thread: it takes the role and drains the queue itself, and the lent
    /// thread ends when its continuation returns.
    /// </remarks>
    public void Stop()
    {
        Queue.Close();
        if (IsMergerThread && Thread.CurrentThread != _thread)
            return; // an operation on a stand-in or a stop closing: the thread it runs on drains after it
        while (true)
        {
            _roleReleased.Reset();
            int role = Interlocked.CompareExchange(ref _role, RoleStopper, RoleFree);
            if (role == RoleFree)
            {
                DrainAsStopper();
                return;
            }
            if (role == RoleStopper)
            {
                // Another stop drains (or did): wait for it, unless it is this thread (an operation of its drain closing).
                while (!_stopperDrained && _roleThread != Environment.CurrentManagedThreadId)
                    _roleReleased.Wait(RoleRecheck);
                return;
            }
            if (role == RoleMerger)
            {
                // The merger's thread drains and ends; on that thread itself (an operation closing), it drains after it.
                if (Thread.CurrentThread != _thread)
                    _thread.Join();
                return;
            }
            _roleReleased.Wait(RoleRecheck); // a stand-in is running chains
        }
    }

    private void DrainAsStopper()
    {
        _roleThread = Environment.CurrentManagedThreadId;
        try
        {
            // Closed: what is queued now is all there will be.
            while (!Queue.IsEmpty)
                RunChain();
        }
        finally
        {
            _roleThread = 0;
            _stopperDrained = true;
            _roleReleased.Set(); // a lent thread back and waiting sees the stop and ends
        }
    }
}
