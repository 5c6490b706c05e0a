using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;

namespace Cairn.Recovery;

/// <summary>What recovery found and rebuilt: the state to open at and the journals to keep until a sync covers them.</summary>
internal sealed class RecoveryResult
{
    /// <summary>The last transaction in the environment after recovery (the header's when nothing was replayed).</summary>
    public required long LastTransactionId { get; init; }

    public required long FirstReplayedTransactionId { get; init; }

    public required long TransactionsReplayed { get; init; }

    /// <summary>The header of the last replayed entry: the root state after it. Null when nothing was replayed.</summary>
    public required JournalEntryHeader? LastEntry { get; init; }

    /// <summary>Just past the last replayed entry (or the header's position when nothing was replayed).</summary>
    public required JournalPosition Position { get; init; }

    /// <summary>Rebuilt page runs still in scratch memory, sorted by page number: the first state's page table.</summary>
    public required List<(long PageNumber, PageVersion Version)> Pages { get; init; }

    /// <summary>
    /// The journal files left after recovery, for the journal's inventory to start from. Its next sequence
    /// number is above every one this environment has used, so a new journal is never mistaken for an old one.
    /// </summary>
    public required JournalFileSet Journals { get; init; }

    public required long JournalBytesRead { get; init; }

    public required int DistinctPageRuns { get; init; }

    /// <summary>How often the rebuilt pages outgrew their memory budget and were written to the data file.</summary>
    public required int Spills { get; init; }

    public required TimeSpan Elapsed { get; init; }

    /// <summary>
    /// Where the log ended in an invalid entry with nothing valid after it (a torn tail, or a damaged last entry: no
    /// reader can tell them apart); null when it ended cleanly. A writable open cut it off; a read-only one left it.
    /// </summary>
    public TornJournalTail? TornTail { get; init; }
}

/// <summary>An invalid entry that ended the log: its journal, offset, transaction (when its header is intact and ours) and why.</summary>
internal sealed record TornJournalTail(string FilePath, long Offset, long? TransactionId, string Problem);
