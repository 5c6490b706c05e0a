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
        BatchHold? hold;
        lock (_gate)
        {
            _batches.Add((firstTransactionId, lengths.Length));
            hold = _holdNext;
            _holdNext = null;
        }
        if (hold is not null)
        {
            hold.Entered.Set();
            hold.Gate.Wait();
            if (hold.Failure is { } failure)
                throw failure;
        }
        inner.AppendEntries(entries, lengths, firstTransactionId, ends);
    }

    private BatchHold? _holdNext;

    /// <summary>The next batch stops inside its write (before it reaches the journal) until the hold is disposed.</summary>
    public BatchHold HoldNextBatch()
    {
        var hold = new BatchHold();
        lock (_gate)
            _holdNext = hold;
        return hold;
    }

    /// <summary>A batch held on its way to the journal: <see cref="Entered"/> once it is there; disposing lets it go on.</summary>
    internal sealed class BatchHold : IDisposable
    {
        public ManualResetEventSlim Entered { get; } = new();

        public ManualResetEventSlim Gate { get; } = new();

        /// <summary>Set before disposing: the held write throws it instead of reaching the journal.</summary>
        public Exception? Failure { get; set; }

        public void Dispose() => Gate.Set();
    }
}
