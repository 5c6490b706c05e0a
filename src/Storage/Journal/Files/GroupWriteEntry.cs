namespace Cairn.Journal.Files;

/// <summary>
/// One prepared entry in a journal group's write, as the root's journal sees it (<see cref="WriteAheadJournal.AppendGroup"/>):
/// what it reads (the entry, whose it is) and what it reports back (where the entry went, or why it did not). The
/// group above the journal adds its own bookkeeping in a subclass; the journal knows nothing of groups or members.
/// </summary>
internal abstract unsafe class GroupWriteEntry
{
    /// <summary>The environment the entry belongs to: the root's own entries are stamped with no writer, a branch's with the root's id.</summary>
    public Guid EnvironmentId { get; private set; }

    public byte* Entry { get; private set; }

    public long Length { get; private set; }

    public long TransactionId { get; private set; }

    /// <summary>The write failed: the entry is not durable (and not replayable: its first block was wiped, or the root failed for good).</summary>
    public Exception? Error { get; set; }

    /// <summary>The root file the entry went into, once its write is settled.</summary>
    public JournalFile? WrittenInto { get; set; }

    /// <summary>Where the entry ends in <see cref="WrittenInto"/>.</summary>
    public long End { get; set; }

    /// <summary>The span of the write that carried the entry (for the member's IO stats).</summary>
    public long WriteStartTimestamp { get; set; }

    public long WriteEndTimestamp { get; set; }

    /// <summary>Sets the entry to write and clears what an earlier write reported.</summary>
    protected void PrepareEntry(Guid environmentId, byte* entry, long length, long transactionId)
    {
        EnvironmentId = environmentId;
        Entry = entry;
        Length = length;
        TransactionId = transactionId;
        Error = null;
        WrittenInto = null;
        End = 0;
        WriteStartTimestamp = 0;
        WriteEndTimestamp = 0;
    }
}
