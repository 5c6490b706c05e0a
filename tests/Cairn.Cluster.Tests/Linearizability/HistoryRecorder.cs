using System.Diagnostics;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// Records a history as clients run: a client calls <see cref="Invoke"/> just before it sends a request and one of
/// the <see cref="PendingOperation"/>'s methods as soon as it knows the outcome. Thread-safe; times are
/// <see cref="Stopwatch"/> timestamps taken under the lock, so the recorded order of events is their time order.
/// An operation still pending when the history is taken (its client was killed, or is still waiting) is unknown.
/// </summary>
public sealed class HistoryRecorder
{
    private readonly Lock _gate = new(); // protects _invokes, _completions and the id sequence
    private readonly List<(int Client, long At, OperationCall Call)> _invokes = [];
    private readonly Dictionary<int, Completion> _completions = [];

    public PendingOperation Invoke(int client, OperationCall call)
    {
        ArgumentNullException.ThrowIfNull(call);
        lock (_gate)
        {
            _invokes.Add((client, Stopwatch.GetTimestamp(), call));
            return new PendingOperation(this, _invokes.Count - 1, call.Kind);
        }
    }

    internal void Complete(int id, Func<long, Completion> completion)
    {
        lock (_gate)
        {
            if (!_completions.TryAdd(id, completion(Stopwatch.GetTimestamp())))
                throw new InvalidOperationException($"operation {id} was already completed as {_completions[id].Outcome}");
        }
    }

    /// <summary>What has been recorded so far, as a history (pending operations are unknown, with no end time).</summary>
    public History ToHistory()
    {
        lock (_gate)
        {
            var operations = _invokes.Select((invoke, id) => new Operation(id, invoke.Client, invoke.Call, invoke.At,
                _completions.TryGetValue(id, out var c) ? c : Completion.Unknown(null)));
            return new History(operations, Stopwatch.Frequency);
        }
    }
}

/// <summary>An invoked operation waiting for its outcome; complete it exactly once.</summary>
public sealed class PendingOperation
{
    private readonly HistoryRecorder _recorder;
    private readonly OperationKind _kind;

    internal PendingOperation(HistoryRecorder recorder, int id, OperationKind kind)
    {
        _recorder = recorder;
        Id = id;
        _kind = kind;
    }

    public int Id { get; }

    /// <summary>A put or delete was acknowledged.</summary>
    public void Ok()
    {
        Require(_kind is OperationKind.Put or OperationKind.Delete, "Ok() without a result");
        _recorder.Complete(Id, Completion.Ok);
    }

    /// <summary>A get returned <paramref name="value"/> (<c>null</c>: the key was absent).</summary>
    public void OkRead(string? value)
    {
        Require(_kind == OperationKind.Get, "OkRead");
        _recorder.Complete(Id, at => Completion.OkRead(at, value));
    }

    /// <summary>A compare-and-set was acknowledged, swapping or not.</summary>
    public void OkSwapped(bool swapped)
    {
        Require(_kind == OperationKind.CompareAndSet, "OkSwapped");
        _recorder.Complete(Id, at => Completion.OkSwapped(at, swapped));
    }

    /// <summary>The store says the operation definitely did not happen.</summary>
    public void Fail() => _recorder.Complete(Id, Completion.Fail);

    /// <summary>The client gave up (timeout, lost connection): the operation may or may not take effect.</summary>
    public void Unknown() => _recorder.Complete(Id, at => Completion.Unknown(at));

    private void Require(bool fits, string what)
    {
        if (!fits)
            throw new InvalidOperationException($"{what} does not fit operation {Id}, a {_kind}");
    }
}
