namespace Cairn;

/// <summary>
/// The journal cannot be trusted at a place where recovery needs it: an entry whose hashes are valid
/// holds records that cannot be applied (a writer bug rather than a torn write), an invalid entry is
/// followed by valid ones (damage in the middle of the log, not a torn tail), transactions are missing
/// (a deleted journal), or a journal belongs to another environment. Recovery stops and changes nothing
/// it has not already checked; the message names the journal file and the offset.
/// </summary>
public sealed class JournalCorruptionException : IOException
{
    /// <summary>A problem in an entry whose journal file is not known yet (the caller adds it).</summary>
    /// <param name="entryOffset">Where the entry starts in its journal, in bytes.</param>
    /// <param name="transactionId">The entry's transaction, or -1 when its header could not be trusted.</param>
    /// <param name="problem">What is wrong, in words.</param>
    public JournalCorruptionException(long entryOffset, long transactionId, string problem)
        : this(null, entryOffset, transactionId, problem)
    {
    }

    /// <summary>A problem in an entry of a known journal file.</summary>
    /// <param name="filePath">The journal file, or null when not known.</param>
    /// <param name="entryOffset">Where the entry starts in its journal, in bytes.</param>
    /// <param name="transactionId">The entry's transaction, or -1 when its header could not be trusted.</param>
    /// <param name="problem">What is wrong, in words.</param>
    /// <param name="inner">The exception that revealed it, if any.</param>
    public JournalCorruptionException(string? filePath, long entryOffset, long transactionId, string problem, Exception? inner = null)
        : base(Describe(filePath, entryOffset, transactionId, problem), inner)
    {
        FilePath = filePath;
        EntryOffset = entryOffset;
        TransactionId = transactionId;
        Problem = problem;
    }

    /// <summary>The journal file, when known.</summary>
    public string? FilePath { get; }

    /// <summary>Where the entry starts in its journal.</summary>
    public long EntryOffset { get; }

    /// <summary>The entry's transaction, or -1 when the entry's header could not be trusted.</summary>
    public long TransactionId { get; }

    /// <summary>What is wrong, in words (without the file and offset, which the message adds).</summary>
    public string Problem { get; }

    /// <summary>The same problem, now that the caller knows which file it was in.</summary>
    internal JournalCorruptionException InFile(string filePath)
        => FilePath is null ? new JournalCorruptionException(filePath, EntryOffset, TransactionId, Problem, this) : this;

    private static string Describe(string? filePath, long offset, long transactionId, string problem)
    {
        string where = filePath is null ? $"Journal entry at offset {offset}" : $"Journal '{filePath}' at offset {offset}";
        string transaction = transactionId >= 0 ? $" (transaction {transactionId})" : "";
        return $"{where}{transaction} is corrupt: {problem}";
    }
}
