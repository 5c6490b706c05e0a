namespace Cairn.Journal.Files;

/// <summary>
/// Where the commit pipeline's write stage puts a prepared entry: the environment's own journal
/// (<see cref="WriteAheadJournal"/>), or its journal group's shared write (the sharing layer above).
/// Either way the call returns once the entry is durable, with the position just past it in this
/// environment's journal numbering.
/// </summary>
internal unsafe interface IJournalAppender
{
    /// <summary>The environment's journal folder (for messages).</summary>
    string DirectoryPath { get; }

    /// <summary>
    /// Writes one aligned entry durably. A full disk throws <see cref="DiskFullException"/> with nothing
    /// replayable left behind; any other failure throws <see cref="JournalWriteFatalException"/>.
    /// </summary>
    JournalPosition Append(byte* entry, long length, long transactionId);

    /// <summary>
    /// Writes consecutive transactions' entries, which lie back to back in one buffer starting with
    /// <paramref name="firstTransactionId"/>'s, durably and in order, and fills <paramref name="ends"/> with
    /// the position just past each. A failure may leave any prefix of them durable (each entry is stamped
    /// with where its write began, so recovery takes a torn write for a torn tail).
    /// </summary>
    void AppendEntries(byte* entries, ReadOnlySpan<long> lengths, long firstTransactionId, Span<JournalPosition> ends);
}
