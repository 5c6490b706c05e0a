namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// A sequential specification the checker holds a history against: the state before any operation, whether an
/// operation is legal in a state (with its recorded result) and the state after it, and state equality for the
/// checker's memo. States must be immutable values: the checker keeps them.
/// </summary>
public interface IModel<TState>
{
    TState Initial { get; }

    /// <summary>
    /// Which independent part of the state <paramref name="op"/> touches (for a key-value store, its key), or
    /// <c>null</c> when the model cannot be split and the history is checked whole. Splitting is sound only when
    /// operations of different parts never constrain each other (see docs/decisions.md, issue 28, L).
    /// </summary>
    string? PartitionOf(Operation op);

    /// <summary>
    /// Whether <paramref name="op"/>, taking effect in <paramref name="state"/>, could have returned what it
    /// returned; if so, the state after it. An operation of unknown outcome returned nothing observed, so it is
    /// legal wherever its effect is defined.
    /// </summary>
    bool TryStep(TState state, Operation op, out TState next);

    /// <summary>
    /// The partition's operations less those no linearization can depend on, which the checker then leaves out:
    /// without this an unknown write that nobody observed is a candidate at every point after its invoke, and a few
    /// of them pending together make the search exponential. By default nothing is left out.
    /// </summary>
    IReadOnlyList<Operation> WithoutUnobservable(IReadOnlyList<Operation> partition) => partition;

    /// <summary>
    /// True when <paramref name="op"/> never changes the state wherever it is legal (an acknowledged read, a
    /// compare-and-set acknowledged as not swapped). The checker places such an operation as soon as it is legal and
    /// never tries it later instead: that is never worse (docs/decisions.md, issue 28, L), and it keeps concurrent
    /// reads from multiplying the search. False, the default, is always safe.
    /// </summary>
    bool IsReadOnly(Operation op) => false;

    bool StatesEqual(TState a, TState b);

    int HashState(TState state);

    /// <summary>The state as a person reads it in an explanation.</summary>
    string Describe(TState state);
}
