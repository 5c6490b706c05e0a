namespace Cairn.Transactions;

/// <summary>
/// Every published state a reader may still hold, oldest first, so the flusher can turn "the oldest
/// reader's epoch" into the state that reader sees. Not thread-safe: the environment guards it.
/// </summary>
internal sealed class StateHistory
{
    private readonly Queue<EnvironmentState> _states = new();

    public void Add(EnvironmentState state) => _states.Enqueue(state);

    /// <summary>
    /// The newest state at or before <paramref name="epoch"/>. An epoch older than any kept belongs to
    /// a reader that lost its publication race and will move to the current state, so the oldest kept
    /// state answers for it.
    /// </summary>
    public EnvironmentState StateAt(long epoch) => NewestUpTo(epoch, static state => state.Epoch);

    /// <summary>
    /// The newest kept state of a transaction at or before <paramref name="transactionId"/> (the oldest kept
    /// state if there is none: then a reader slot that pins it already holds it).
    /// </summary>
    public EnvironmentState NewestAtOrBefore(long transactionId) => NewestUpTo(transactionId, static state => state.TransactionId);

    /// <summary>The newest kept state whose <paramref name="key"/> (increasing from oldest to newest) is at most <paramref name="bound"/>, else the oldest.</summary>
    private EnvironmentState NewestUpTo(long bound, Func<EnvironmentState, long> key)
    {
        EnvironmentState? answer = null;
        foreach (var state in _states)
        {
            if (key(state) > bound)
                break;
            answer = state;
        }
        return answer ?? _states.Peek();
    }

    /// <summary>
    /// Replaces each epoch in <paramref name="epochs"/> with the transaction of the state <see cref="StateAt"/> gives for it
    /// (the list is sorted first).
    /// </summary>
    public void ToTransactionIds(List<long> epochs)
    {
        epochs.Sort();
        // One walk: the states are oldest first, so the newest state at or before each epoch only moves forward.
        EnvironmentState answer = _states.Peek();
        int i = 0;
        foreach (var state in _states)
        {
            for (; i < epochs.Count && epochs[i] < state.Epoch; i++)
                epochs[i] = answer.TransactionId;
            answer = state;
        }
        for (; i < epochs.Count; i++)
            epochs[i] = answer.TransactionId;
    }

    /// <summary>Drops states older than the oldest one a reader uses (the newest is always kept).</summary>
    public void Forget(long oldestReaderEpoch)
    {
        while (_states.Count > 1 && _states.Peek().Epoch < oldestReaderEpoch)
            _states.Dequeue();
    }

    public void Clear() => _states.Clear();
}
