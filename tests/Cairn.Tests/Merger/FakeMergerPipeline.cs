using Cairn.Merger;

namespace Cairn.Tests.Merger;

/// <summary>What an operation receives from the fake pipeline: the values applied to it, in order (its "changes").</summary>
internal sealed class FakeTransaction
{
    public List<int> Applied { get; } = [];

    public void Apply(int value) => Applied.Add(value);
}

/// <summary>The stages the merger drives, as <see cref="FakeMergerPipeline"/> records them.</summary>
internal enum MergerStep
{
    EnterWrites,
    LeaveWrites,
    WaitForScratch,
    FailWrite,
    OpenOnPublished,
    OpenOnTopOf,
    Rebase,
    Restart,
    Prepare,
    Write,
    Publish,
    Discard,
}

/// <summary>
/// One recorded step. <see cref="Slot"/>: which of the merger's transactions (0 for the pipeline's own steps).
/// <see cref="TransactionId"/>: for an open, the id of the state it opened on; for a rebase, the id now
/// published; otherwise the transaction's own id.
/// </summary>
internal readonly record struct MergerEvent(MergerStep Step, int Slot, long TransactionId);

/// <summary>
/// An <see cref="IMergerPipeline{T}"/> that commits nothing anywhere and records everything: the steps in the
/// order they happened (across the merger's two threads), and the published transactions with the values their
/// operations applied. Writes pass <see cref="Writes"/> (open unless a test closes it) and may be told to fail;
/// once a write has failed the environment counts as failed and <see cref="EnterWrites"/> throws, as the real one does.
/// </summary>
internal sealed class FakeMergerPipeline : IMergerPipeline<FakeTransaction>
{
    private readonly Lock _gate = new();
    private readonly List<MergerEvent> _events = [];
    private readonly List<(long TransactionId, int[] Values)> _published = [];
    private readonly List<string?> _writeThreads = [];
    private int _slots;
    private long _publishedId;
    private Exception? _nextWriteError;
    private EnvironmentFailedException? _failure;
    private volatile bool _scratchOverLimit;
    private readonly TaskCompletionSource _leftAfterFailure = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Every journal write waits here first.</summary>
    public WriteGate Writes { get; } = new();

    /// <summary>The name of the thread each write ran on, in write order.</summary>
    public List<string?> WriteThreads
    {
        get
        {
            lock (_gate)
                return [.. _writeThreads];
        }
    }

    /// <summary>The next write throws this (once).</summary>
    public void FailNextWrite(Exception error) => Volatile.Write(ref _nextWriteError, error);

    /// <summary>What <see cref="FailWrite"/> returned (<see cref="EnterWrites"/> throws its like from then on).</summary>
    public EnvironmentFailedException? Failure => Volatile.Read(ref _failure);

    public int EnterAttempts { get; private set; }

    public int WritesEntered => Count(MergerStep.EnterWrites);

    public int WritesLeft => Count(MergerStep.LeaveWrites);

    public List<MergerEvent> Events
    {
        get
        {
            lock (_gate)
                return [.. _events];
        }
    }

    /// <summary>The published transactions in publication order, each with its operations' values.</summary>
    public IReadOnlyList<(long TransactionId, int[] Values)> Published
    {
        get
        {
            lock (_gate)
                return [.. _published];
        }
    }

    /// <summary>The publications as text, e.g. <c>"1:1 2:2,3"</c> (transaction 2 holds the values 2 and 3).</summary>
    public string PublishedSummary
    {
        get
        {
            lock (_gate)
                return string.Join(" ", _published.Select(p => $"{p.TransactionId}:{string.Join(",", p.Values)}"));
        }
    }

    public long PublishedId
    {
        get
        {
            lock (_gate)
                return _publishedId;
        }
    }

    public bool IsPublished(int value)
    {
        lock (_gate)
            return _published.Any(p => p.Values.Contains(value));
    }

    public int Count(MergerStep step)
    {
        lock (_gate)
            return _events.Count(e => e.Step == step);
    }

    public void EnterWrites()
    {
        lock (_gate)
        {
            EnterAttempts++;
            // A new exception each time, as FailureLatch.Exception() makes: a caller that gets FailWrite's own
            // object was failed by the chain that saw the failure, not by a later refusal.
            if (_failure is not null)
                throw new EnvironmentFailedException("fake", _failure.Operation, _failure.InnerException!);
        }
        Record(MergerStep.EnterWrites, 0, 0);
    }

    public void LeaveWrites()
    {
        Record(MergerStep.LeaveWrites, 0, 0);
        if (Failure is not null)
            _leftAfterFailure.TrySetResult();
    }

    /// <summary>Completes when the chain that saw the failure has let the write lock go (it has failed all it held and all queued).</summary>
    public Task LeftAfterFailure => _leftAfterFailure.Task;

    public bool ScratchOverLimit
    {
        get => _scratchOverLimit;
        set => _scratchOverLimit = value;
    }

    /// <summary>As the real one: returns once scratch memory is back under its limit.</summary>
    public void WaitForScratch()
    {
        Record(MergerStep.WaitForScratch, 0, PublishedId);
        _scratchOverLimit = false;
    }

    public IMergedTransaction<FakeTransaction> CreateTransaction() => new FakeMergedTransaction(this, Interlocked.Increment(ref _slots));

    /// <summary>Latches the failure, like the real pipeline: what it returns wraps the write's error.</summary>
    public Exception FailWrite(Exception error)
    {
        lock (_gate)
        {
            _failure ??= new EnvironmentFailedException("fake", "writing the journal (merged transaction)", error);
            _events.Add(new MergerEvent(MergerStep.FailWrite, 0, _publishedId));
            return _failure;
        }
    }

    internal void Record(MergerStep step, int slot, long transactionId)
    {
        lock (_gate)
            _events.Add(new MergerEvent(step, slot, transactionId));
    }

    /// <summary>On the journal writer's thread.</summary>
    internal void Write(FakeMergedTransaction transaction)
    {
        Record(MergerStep.Write, transaction.Slot, transaction.TransactionId);
        lock (_gate)
            _writeThreads.Add(Thread.CurrentThread.Name);
        Writes.Pass();
        if (Interlocked.Exchange(ref _nextWriteError, null) is { } error)
            throw error;
    }

    /// <summary>On the journal writer's thread, right after a successful write.</summary>
    internal void Publish(FakeMergedTransaction transaction)
    {
        lock (_gate)
        {
            _events.Add(new MergerEvent(MergerStep.Publish, transaction.Slot, transaction.TransactionId));
            _published.Add((transaction.TransactionId, [.. transaction.Transaction.Applied]));
            _publishedId = transaction.TransactionId;
        }
    }
}
