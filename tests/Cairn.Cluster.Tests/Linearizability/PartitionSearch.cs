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
/// One addition: a read-only operation (<see cref="IModel{TState}.IsReadOnly"/>) that is a candidate and legal is
/// placed at once, before any other candidate is tried, and never tried later instead: any linearization that places
/// it later can place it here (it changes no state, and no remaining operation returned before its invoke), so the
/// configuration succeeds exactly when the one after it does. Concurrent reads then cost no branching.
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

    /// <summary>The passes over a configuration's candidates, in order: read-only operations (placed at once if legal), then the others.</summary>
    private enum Pass { ReadOnly, Other }

    /// <summary>A linearized operation and the pass that chose it (<see cref="Pass.ReadOnly"/>: forced, no other choice to try).</summary>
    private readonly record struct Frame(Event Call, TState Before, TState After, Pass Pass);

    private readonly IReadOnlyList<Operation> _ops;
    private readonly IModel<TState> _model;
    private readonly Pass[] _pass;
    private readonly List<Frame> _stack = [];
    private readonly List<Frame> _best = []; // the deepest stack seen; its first _bestValid frames equal the stack's
    private int _bestValid;

    public PartitionSearch(IReadOnlyList<Operation> ops, IModel<TState> model)
    {
        _ops = ops;
        _model = model;
        _pass = ops.Select(o => model.IsReadOnly(o) ? Pass.ReadOnly : Pass.Other).ToArray();
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
        var pass = Pass.ReadOnly;
        long steps = 0;
        while (head.Next is not null)
        {
            if (++steps > maxSteps || ((steps & 4095) == 1 && Stopwatch.GetTimestamp() >= deadline))
                return Result(name, Verdict.Unknown, steps);
            var current = next!;
            if (!current.IsCall)
            {
                // The end of the candidates: walk them again in the next pass, or, after the last, undo.
                if (pass == Pass.ReadOnly)
                    (pass, next) = (Pass.Other, head.Next);
                else if (!Backtrack(linearized, ref state, ref next, ref pass))
                    return Result(name, Verdict.NotLinearizable, steps);
                continue;
            }
            // Each candidate is tried in its own pass; a read-only one is known illegal after its pass placed nothing.
            if (_pass[current.Op] != pass || !_model.TryStep(state, _ops[current.Op], out var after))
            {
                next = current.Next;
                continue;
            }
            linearized.Add(current.Op);
            if (!memo.Contains((linearized, after)))
            {
                if (memo.Count >= maxMemo)
                    return Result(name, Verdict.Unknown, steps);
                memo.Add((linearized.Snapshot(), after));
                Push(new Frame(current, state, after, pass));
                state = after;
                Lift(current);
                (pass, next) = (Pass.ReadOnly, head.Next);
                continue;
            }
            linearized.Remove(current.Op);
            // A legal read-only candidate decides its configuration (placing it now is never worse), and the
            // configuration after it was already explored and failed: so has this one.
            if (pass != Pass.ReadOnly)
                next = current.Next;
            else if (!Backtrack(linearized, ref state, ref next, ref pass))
                return Result(name, Verdict.NotLinearizable, steps);
        }
        return new PartitionResult(name, Verdict.Linearizable, _ops.Count, steps, [], [], null);
    }

    /// <summary>
    /// Undoes the last choice and any forced (read-only) ones under it, since a configuration whose forced choice
    /// failed has failed; the walk goes on after the last undone call. False when there is nothing left to undo.
    /// </summary>
    private bool Backtrack(OperationSet linearized, ref TState state, ref Event? next, ref Pass pass)
    {
        Frame undone;
        do
        {
            if (_stack.Count == 0)
                return false;
            undone = Pop();
            linearized.Remove(undone.Call.Op);
            state = undone.Before;
            Unlift(undone.Call);
        }
        while (undone.Pass == Pass.ReadOnly);
        (pass, next) = (undone.Pass, undone.Call.Next); // go on with the pass that chose it, after it
        return true;
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
