namespace Cairn;

/// <summary>
/// A journal entry whose header and payload hash are valid holds page records that cannot be
/// applied: a record or diff operation points outside its page, lengths disagree, or the payload
/// does not decompress. The hashes make this a writer bug rather than a torn write.
/// </summary>
public sealed class JournalCorruptionException(long entryOffset, long transactionId, string problem)
    : IOException($"Journal entry at offset {entryOffset} (transaction {transactionId}) is corrupt: {problem}")
{
    /// <summary>Where the entry starts in its journal (as the caller gave it).</summary>
    public long EntryOffset { get; } = entryOffset;

    public long TransactionId { get; } = transactionId;

    public string Problem { get; } = problem;
}
