namespace Cairn.Journal.Files;

/// <summary>
/// One environment's part of a journal group's write, as the root's journal sees it (<see cref="WriteAheadJournal.AppendGroup"/>):
/// the entries of its consecutive transactions, back to back in one buffer (the environment's own group commit: every commit
/// it had waiting when it submitted), whose they are, and what the write reports back (where they went, or why they did not).
/// The group above the journal adds its own bookkeeping in a subclass; the journal knows nothing of groups or members.
/// </summary>
internal abstract unsafe class GroupWriteEntry
{
    // Each entry's length, the first EntryCount in use (kept to be reused: no allocation per write once grown).
    private long[] _lengths = new long[8];

    /// <summary>The environment the entries belong to: the root's own entries are stamped with no writer, a branch's with the root's id.</summary>
    public Guid EnvironmentId { get; private set; }

    /// <summary>The environment's name in IO stats records of the writes that carry it (its folder's name).</summary>
    public string EnvironmentName { get; private set; } = "";

    /// <summary>The first entry; the others follow it back to back.</summary>
    public byte* Entry { get; private set; }

    /// <summary>All the entries' bytes.</summary>
    public long Length { get; private set; }

    public long FirstTransactionId { get; private set; }

    public int EntryCount { get; private set; }

    public long LastTransactionId => FirstTransactionId + EntryCount - 1;

    /// <summary>Each entry's length, in transaction order.</summary>
    public ReadOnlySpan<long> EntryLengths => _lengths.AsSpan(0, EntryCount);

    /// <summary>The write failed: the entries are not durable (and not replayable: their first blocks were wiped, or the root failed for good).</summary>
    public Exception? Error { get; set; }

    /// <summary>The root file the entries went into, once their write is settled.</summary>
    public JournalFile? WrittenInto { get; set; }

    /// <summary>Where the last entry ends in <see cref="WrittenInto"/>.</summary>
    public long End { get; set; }

    /// <summary>The span of the write that carried the entries (for the member's IO stats).</summary>
    public long WriteStartTimestamp { get; set; }

    public long WriteEndTimestamp { get; set; }

    /// <summary>Sets the entries to write and clears what an earlier write reported.</summary>
    protected void PrepareEntries(Guid environmentId, string environmentName, byte* entries, ReadOnlySpan<long> lengths, long firstTransactionId)
    {
        if (lengths.IsEmpty)
            throw new ArgumentException("A group write entry carries at least one journal entry.", nameof(lengths));
        if (_lengths.Length < lengths.Length)
            _lengths = new long[Math.Max(lengths.Length, _lengths.Length * 2)];
        long total = 0;
        for (int i = 0; i < lengths.Length; i++)
        {
            _lengths[i] = lengths[i];
            total += lengths[i];
        }
        EnvironmentId = environmentId;
        EnvironmentName = environmentName;
        Entry = entries;
        Length = total;
        FirstTransactionId = firstTransactionId;
        EntryCount = lengths.Length;
        Error = null;
        WrittenInto = null;
        End = 0;
        WriteStartTimestamp = 0;
        WriteEndTimestamp = 0;
    }
}
