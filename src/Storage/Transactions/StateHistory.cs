namespace Cairn.Transactions;

/// <summary>
/// The transaction id of every published state a reader may still hold, by epoch, so the flusher can
/// turn "the oldest reader's epoch" into "the oldest transaction a reader sees".
/// </summary>
internal sealed class StateHistory
{
    private readonly Queue<(long Epoch, long TransactionId)> _states = new();

    public void Add(EnvironmentState state) => _states.Enqueue((state.Epoch, state.TransactionId));

    /// <summary>
    /// The transaction id of the newest state at or before <paramref name="epoch"/>. An epoch older
    /// than any kept belongs to a reader that lost its publication race and will move to the current
    /// state, so the oldest kept state answers for it.
    /// </summary>
    public long TransactionIdOf(long epoch)
    {
        long answer = -1;
        foreach (var (e, transactionId) in _states)
        {
            if (e > epoch)
                break;
            answer = transactionId;
        }
        return answer >= 0 ? answer : _states.Peek().TransactionId;
    }

    /// <summary>Drops states older than the oldest one a reader uses (the newest is always kept).</summary>
    public void Forget(long oldestReaderEpoch)
    {
        while (_states.Count > 1 && _states.Peek().Epoch < oldestReaderEpoch)
            _states.Dequeue();
    }
}
