using Cairn.Journal.Files;

namespace Cairn.Journal.Sharing;

/// <summary>
/// One environment's prepared journal entry waiting for its journal group's next write, and what became of
/// it. Each member of a group owns one and reuses it: an environment has at most one entry in flight (its
/// one writer, or its merger, which writes one transaction at a time).
/// </summary>
internal sealed unsafe class SharedWriteRequest : IDisposable
{
    // Set when the request is completed or its submitter is made the group's writer; waited on by the submitter.
    private readonly ManualResetEventSlim _signal = new(false, spinCount: 20);

    public JournalGroupMember Member { get; private set; } = null!;

    /// <summary>The batch this request's submitter writes when it is the group's writer (kept to be reused).</summary>
    public List<SharedWriteRequest> Batch { get; } = [];

    public byte* Entry { get; private set; }

    public long Length { get; private set; }

    public long TransactionId { get; private set; }

    /// <summary>Where the entry ends in the member's own journal numbering, once written (and, for a branch, linked).</summary>
    public JournalPosition Position { get; set; }

    /// <summary>The write failed: the entry is not durable (and not replayable: its first block was wiped, or the root failed for good).</summary>
    public Exception? Error { get; set; }

    /// <summary>The entry is durable in the root's file but the branch could not link that file: the branch writes the entry itself.</summary>
    public Exception? LinkError { get; set; }

    /// <summary>The root file the entry went into, and the span of the write that carried it (for the member's IO stats).</summary>
    public JournalFile? WrittenInto { get; set; }

    /// <summary>Where the entry ends in <see cref="WrittenInto"/>.</summary>
    public long End { get; set; }

    public long WriteStartTimestamp { get; set; }

    public long WriteEndTimestamp { get; set; }

    /// <summary>The group chose the submitter to perform the next write (the previous writer is done).</summary>
    public bool Promoted { get; private set; }

    public void Prepare(JournalGroupMember member, byte* entry, long length, long transactionId)
    {
        Member = member;
        Entry = entry;
        Length = length;
        TransactionId = transactionId;
        Position = default;
        Error = null;
        LinkError = null;
        WrittenInto = null;
        End = 0;
        Promoted = false;
        _signal.Reset();
    }

    public void Complete() => _signal.Set();

    public void Promote()
    {
        Promoted = true;
        _signal.Set();
    }

    /// <summary>Waits until the request is completed or promoted; returns true if promoted (and clears that).</summary>
    public bool WaitForTurn()
    {
        _signal.Wait();
        if (!Promoted)
            return false;
        Promoted = false;
        _signal.Reset();
        return true;
    }

    public void Dispose() => _signal.Dispose();
}
