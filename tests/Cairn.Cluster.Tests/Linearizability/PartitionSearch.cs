using System.Diagnostics;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// Wing and Gong's search for a linearization of one partition, with Lowe's memo. The history is a list of events
/// (each operation's call and return) in time order. The search walks it from the front: a call is a candidate to
/// take effect next; if the model accepts it and the pair (operations linearized so far, state after it) has not
/// been seen, the operation is linearized and its call and return are lifted out of the list, and the walk starts
/// again from the front. Reaching a return means that operation had to be linearized before anything later, and
/// it was not: undo the last choice and try the next candidate after it. An empty list is a linearization; undoing
/// with nothing left to undo proves there is none. The memo makes each (set, state) pair explored once.
/// </summary>
internal sealed class PartitionSearch<TState>
{
    private sealed class Event
    {
        public required int Op;
        public required bool IsCall;
        public required long At;
        public Event? Match; // a call's return
        public Event? Prev;
        public Event? Next;
    }

    private readonly record struct Frame(Event Call, TState Before, TState After);

    private readonly IReadOnlyList<Operation> _ops;
    private readonly IModel<TState> _model;
    private readonly List<Frame> _stack = [];
    private readonly List<Frame> _best = []; // the deepest stack seen; its first _bestValid frames equal the stack's
    private int _bestValid;

    public PartitionSearch(IReadOnlyList<Operation> ops, IModel<TState> model)
    {
        _ops = ops;
        _model = model;
    }

    /// <summary>Searches within the limits; <paramref name="deadline"/> is a Stopwatch timestamp, or <see cref="long.MaxValue"/>.</summary>
    public PartitionResult Run(string name, CheckLimits limits, long deadline)
    {
        long maxSteps = limits.MaxStepsPerPartition, maxMemo = limits.MaxMemoEntries(_ops.Count);
        var head = BuildEvents();
        var linearized = new OperationSet(_ops.Count);
        var memo = new HashSet<(OperationSet Set, TState State)>(new MemoComparer(_model));
        TState state = _model.Initial;
        Event? next = head.Next;
        long steps = 0;
        while (head.Next is not null)
        {
            if (++steps > maxSteps || ((steps & 4095) == 1 && Stopwatch.GetTimestamp() >= deadline))
                return Result(name, Verdict.Unknown, steps);
            var current = next!;
            if (current.IsCall)
            {
                if (_model.TryStep(state, _ops[current.Op], out var after))
                {
                    linearized.Add(current.Op);
                    if (!memo.Contains((linearized, after)))
                    {
                        if (memo.Count >= maxMemo)
                            return Result(name, Verdict.Unknown, steps);
                        memo.Add((linearized.Snapshot(), after));
                        Push(new Frame(current, state, after));
                        state = after;
                        Lift(current);
                        next = head.Next;
                        continue;
                    }
                    linearized.Remove(current.Op);
                }
                next = current.Next;
            }
            else
            {
                if (_stack.Count == 0)
                    return Result(name, Verdict.NotLinearizable, steps);
                var undone = Pop();
                linearized.Remove(undone.Call.Op);
                state = undone.Before;
                Unlift(undone.Call);
                next = undone.Call.Next;
            }
        }
        return new PartitionResult(name, Verdict.Linearizable, _ops.Count, steps, [], [], null);
    }

    /// <summary>The events in time order behind a sentinel head; at equal times calls come first (see decisions.md).</summary>
    private Event BuildEvents()
    {
        var events = new List<Event>(_ops.Count * 2);
        for (int i = 0; i < _ops.Count; i++)
        {
            var ret = new Event { Op = i, IsCall = false, At = _ops[i].ReturnForCheck };
            events.Add(new Event { Op = i, IsCall = true, At = _ops[i].InvokedAt, Match = ret });
            events.Add(ret);
        }
        events.Sort((a, b) => a.At != b.At ? a.At.CompareTo(b.At) : a.IsCall != b.IsCall ? (a.IsCall ? -1 : 1) : a.Op.CompareTo(b.Op));
        var head = new Event { Op = -1, IsCall = false, At = long.MinValue };
        var last = head;
        foreach (var e in events)
        {
            last.Next = e;
            e.Prev = last;
            last = e;
        }
        return head;
    }

    /// <summary>Takes a linearized call and its return out of the list; <see cref="Unlift"/> puts them back.</summary>
    private static void Lift(Event call)
    {
        call.Prev!.Next = call.Next;
        call.Next!.Prev = call.Prev;
        var ret = call.Match!;
        ret.Prev!.Next = ret.Next;
        if (ret.Next is not null)
            ret.Next.Prev = ret.Prev;
    }

    private static void Unlift(Event call)
    {
        var ret = call.Match!;
        ret.Prev!.Next = ret;
        if (ret.Next is not null)
            ret.Next.Prev = ret;
        call.Prev!.Next = call;
        call.Next!.Prev = call;
    }

    /// <summary>Pushes, copying into the deepest stack only the frames that differ from it (each frame at most once).</summary>
    private void Push(Frame frame)
    {
        _stack.Add(frame);
        if (_stack.Count <= _best.Count)
            return;
        for (int i = _bestValid; i < _stack.Count; i++)
        {
            if (i < _best.Count)
                _best[i] = _stack[i];
            else
                _best.Add(_stack[i]);
        }
        _bestValid = _stack.Count;
    }

    private Frame Pop()
    {
        var frame = _stack[^1];
        _stack.RemoveAt(_stack.Count - 1);
        _bestValid = Math.Min(_bestValid, _stack.Count);
        return frame;
    }

    /// <summary>
    /// The explanation: the deepest prefix, then every operation not in it that was invoked before the first of
    /// them returned (one of those had to come next) with the reason the model gives for each.
    /// </summary>
    private PartitionResult Result(string name, Verdict verdict, long steps)
    {
        var placed = new bool[_ops.Count];
        foreach (var frame in _best)
            placed[frame.Call.Op] = true;
        TState state = _best.Count == 0 ? _model.Initial : _best[^1].After;
        var rest = Enumerable.Range(0, _ops.Count).Where(i => !placed[i]).ToList();
        var prefix = _best.Select(f => new PlacedOperation(_ops[f.Call.Op], _model.Describe(f.After))).ToList();
        if (verdict == Verdict.Unknown || rest.Count == 0)
            return new PartitionResult(name, verdict, _ops.Count, steps, prefix, [], null);
        int first = rest.MinBy(i => (_ops[i].ReturnForCheck, i));
        long bound = _ops[first].ReturnForCheck;
        var unplaced = rest.Where(i => _ops[i].InvokedAt <= bound).OrderBy(i => (_ops[i].InvokedAt, i))
            .Select(i => new UnplacedOperation(_ops[i], _model.TryStep(state, _ops[i], out _)
                ? $"legal in state {_model.Describe(state)}, but no order of the remaining operations works after it"
                : $"impossible in state {_model.Describe(state)}"))
            .ToList();
        return new PartitionResult(name, verdict, _ops.Count, steps, prefix, unplaced, _ops[first]);
    }

    private sealed class MemoComparer(IModel<TState> model) : IEqualityComparer<(OperationSet Set, TState State)>
    {
        public bool Equals((OperationSet Set, TState State) a, (OperationSet Set, TState State) b) =>
            a.Set.Hash == b.Set.Hash && a.Set.Count == b.Set.Count && model.StatesEqual(a.State, b.State) && a.Set.SameMembers(b.Set);

        public int GetHashCode((OperationSet Set, TState State) key) => HashCode.Combine(key.Set.Hash, model.HashState(key.State));
    }
}
