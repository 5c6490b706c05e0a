using Cairn.Journal.Files;

namespace Cairn.Journal.Sharing;

/// <summary>
/// One environment's prepared journal entries (every commit it had waiting: its own group commit) waiting for its
/// journal group's next write, and what became of them. Each member of a group owns one and reuses it: an environment
/// has at most one request in flight (its commit queue writes one batch at a time). What the root's journal reads and
/// reports is its <see cref="GroupWriteEntry"/> part.
/// </summary>
internal sealed unsafe class SharedWriteRequest : GroupWriteEntry, IDisposable
{
    // Set when the request is completed or its submitter is made the group's writer; waited on by the submitter.
    private readonly ManualResetEventSlim _signal = new(false, spinCount: 20);

    public JournalGroupMember Member { get; private set; } = null!;

    /// <summary>The batch this request's submitter writes when it is one of the group's writers (kept to be reused).</summary>
    public List<SharedWriteRequest> Batch { get; } = [];

    /// <summary>The journal write this request's submitter performs as one of the group's writers (kept to be reused).</summary>
    public GroupWrite Write { get; } = new();

    /// <summary>A writer of the group took the request into its batch (under the group's gate).</summary>
    public bool Taken { get; set; }

    /// <summary>Where the entry ends in the member's own journal numbering, once written (and, for a branch, linked).</summary>
    public JournalPosition Position { get; set; }

    /// <summary>The entry is durable in the root's file but the branch could not link that file: the branch writes the entry itself.</summary>
    public Exception? LinkError { get; set; }

    /// <summary>
    /// The number of the group's write that last carried this request (under the group's gate; kept across
    /// <see cref="Prepare"/>): what tells the group a submitter is one its last write released.
    /// </summary>
    public long CarriedBy { get; set; }

    /// <summary>The request's submitter is one of the group's writers (it submitted while a writer's place was free, or was handed one).</summary>
    public bool Leading { get; set; }

    // Set by Complete and by Promote; the flags say which (both, when a promoted request is failed before it
    // looked): the event alone could be reset by the promoted submitter after a completion.
    private volatile bool _completed;
    private volatile bool _promoted;

    /// <summary>The member's waiting entries, back to back from <paramref name="entries"/>, go into the group's next write together.</summary>
    public void Prepare(JournalGroupMember member, byte* entries, ReadOnlySpan<long> lengths, long firstTransactionId)
    {
        Member = member;
        PrepareEntries(member.EnvironmentId, member.EnvironmentName, entries, lengths, firstTransactionId);
        Position = default;
        LinkError = null;
        Taken = false;
        Leading = false;
        _completed = false;
        _promoted = false;
        _signal.Reset();
    }

    public void Complete()
    {
        _completed = true;
        _signal.Set();
    }

    public void Promote()
    {
        _promoted = true;
        _signal.Set();
    }

    /// <summary>Waits until the request is completed.</summary>
    public void WaitForCompletion()
    {
        while (!_completed)
            _signal.Wait();
    }

    /// <summary>
    /// Waits until the request is promoted (true: its submitter is now one of the group's writers, even if the
    /// request was failed meanwhile) or completed by another writer (false).
    /// </summary>
    public bool WaitForTurn()
    {
        while (true)
        {
            _signal.Wait();
            if (_promoted)
            {
                _promoted = false;
                _signal.Reset(); // a completion from here on is seen through _completed
                return true;
            }
            if (_completed)
                return false;
        }
    }

    public void Dispose() => _signal.Dispose();
}
