namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// A key-value store checked key by key: each key is a register (its value, or <c>null</c> when absent) with put,
/// get, delete and compare-and-set. The state is one key's value because the history is partitioned by key.
/// </summary>
public sealed class KeyValueRegisterModel : IModel<string?>
{
    public static readonly KeyValueRegisterModel Instance = new();

    public string? Initial => null;

    public string? PartitionOf(Operation op) => op.Call.Key;

    public bool TryStep(string? state, Operation op, out string? next) => Step(state, op, out next);

    /// <summary>One key's register semantics, shared with <see cref="KeyValueMapModel"/>.</summary>
    internal static bool Step(string? current, Operation op, out string? next)
    {
        var call = op.Call;
        bool observed = op.Completion.Outcome == Outcome.Ok;
        next = current;
        switch (call.Kind)
        {
            case OperationKind.Put:
                next = call.Value;
                return true;
            case OperationKind.Delete:
                next = null;
                return true;
            case OperationKind.Get:
                return !observed || current == op.Completion.Read;
            default:
                bool matches = current == call.Expected;
                if (matches)
                    next = call.Value;
                return !observed || matches == op.Completion.Swapped;
        }
    }

    /// <summary>
    /// Leaves out the unknown puts and deletes whose value (absent, for a delete) no acknowledged get read and no
    /// compare-and-set expected, and which were invoked after every acknowledged compare-and-set that failed to swap
    /// had returned (such a failure observes "not the expected value", which the write could explain). Such a write
    /// can be moved to the end of any linearization without changing a result (docs/decisions.md, issue 28, L, has
    /// the argument), so the history is linearizable with it exactly when it is without it.
    /// </summary>
    public IReadOnlyList<Operation> WithoutUnobservable(IReadOnlyList<Operation> partition)
    {
        var observed = new HashSet<string?>(); // string equality is ordinal; null is absent
        long lastFailedSwap = long.MinValue;
        foreach (var op in partition)
        {
            if (op.Call.Kind == OperationKind.Get && op.Completion.Outcome == Outcome.Ok)
                observed.Add(op.Completion.Read);
            if (op.Call.Kind != OperationKind.CompareAndSet)
                continue;
            observed.Add(op.Call.Expected);
            if (op.Completion.Outcome == Outcome.Ok && !op.Completion.Swapped)
                lastFailedSwap = Math.Max(lastFailedSwap, op.Completion.At!.Value);
        }
        return partition.Where(op => !(op.Completion.Outcome == Outcome.Unknown
            && op.Call.Kind is OperationKind.Put or OperationKind.Delete
            && op.InvokedAt > lastFailedSwap
            && !observed.Contains(op.Call.Value))).ToList();
    }

    /// <summary>An acknowledged get, or an acknowledged compare-and-set that did not swap.</summary>
    public bool IsReadOnly(Operation op) => op.Completion.Outcome == Outcome.Ok && op.Call.Kind switch
    {
        OperationKind.Get => true,
        OperationKind.CompareAndSet => !op.Completion.Swapped,
        _ => false,
    };

    public bool StatesEqual(string? a, string? b) => string.Equals(a, b, StringComparison.Ordinal);

    public int HashState(string? state) => state is null ? 0 : StringComparer.Ordinal.GetHashCode(state);

    public string Describe(string? state) => OperationCall.Quote(state);
}
