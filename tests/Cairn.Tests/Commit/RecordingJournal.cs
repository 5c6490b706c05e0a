using Cairn.Journal;
using Cairn.Journal.Files;

namespace Cairn.Tests.Commit;

/// <summary>
/// A write stage's journal that records each call before passing it to a real journal: which transactions went out
/// alone (<see cref="IJournalAppender.Append"/>) and which in a batch of queued entries (<see cref="IJournalAppender.AppendEntries"/>).
/// </summary>
internal sealed unsafe class RecordingJournal(IJournalAppender inner) : IJournalAppender
{
    private readonly Lock _gate = new();
    private readonly List<long> _alone = [];
    private readonly List<(long First, int Count)> _batches = [];

    public string DirectoryPath => inner.DirectoryPath;

    /// <summary>Transactions whose entry was written alone, in order.</summary>
    public long[] WrittenAlone
    {
        get
        {
            lock (_gate)
                return [.. _alone];
        }
    }

    /// <summary>Batches of queued entries written together: the first transaction and how many.</summary>
    public (long First, int Count)[] Batches
    {
        get
        {
            lock (_gate)
                return [.. _batches];
        }
    }

    public JournalPosition Append(byte* entry, long length, long transactionId)
    {
        lock (_gate)
            _alone.Add(transactionId);
        return inner.Append(entry, length, transactionId);
    }

    public void AppendEntries(byte* entries, ReadOnlySpan<long> lengths, long firstTransactionId, Span<JournalPosition> ends)
    {
        lock (_gate)
            _batches.Add((firstTransactionId, lengths.Length));
        inner.AppendEntries(entries, lengths, firstTransactionId, ends);
    }
}
