using Cairn.Journal;
using Cairn.Transactions;

namespace Cairn.Merger;

/// <summary>
/// One merged transaction from its first operation until its callers are released. The merger has two
/// and alternates them: one being written to the journal, the next one executing on top of it. Each
/// owns the buffers a transaction needs (dirty-page map, freed list, journal entry), so neither
/// allocates per commit.
/// </summary>
internal sealed class CommitSlot : IDisposable
{
    private readonly Dictionary<long, LowLevelTransaction.DirtyRun> _dirty = [];
    private readonly List<(long, int)> _freed = [];
    private volatile bool _written;

    public JournalBuffer Buffer { get; } = new();

    /// <summary>The operations this transaction holds, in the order they ran.</summary>
    public List<MergedOperation> Operations { get; } = new(256);

    public LowLevelTransaction? Low { get; private set; }

    public WriteTransaction? Transaction { get; private set; }

    /// <summary>The state the transaction reads through: published, or the previous slot's pending one.</summary>
    public EnvironmentState? Base { get; private set; }

    public long BatchStarted { get; set; }

    public long QueueWaitTicks { get; set; }

    public long MaxQueueWaitTicks { get; set; }

    public int Reruns { get; set; }

    // Filled by Prepare.
    public long TransactionId { get; set; }

    public long EntryLength { get; set; }

    public EnvironmentState? Pending { get; set; }

    /// <summary>The published state <see cref="Pending"/> was built on: if it is still current at publication, Pending's page table is published as it is.</summary>
    public EnvironmentState? PreparedOn { get; set; }

    public long WriteSubmitted { get; set; }

    // Filled by the journal writer.
    public JournalPosition Position { get; set; }

    public Exception? WriteError { get; set; }

    public long WriteCompleted { get; set; }

    /// <summary>
    /// The write succeeded but publishing it failed part way: its pages may be in the published state, so a
    /// failure must not free them (the environment has failed; they are never reused).
    /// </summary>
    public bool MayBePublished { get; set; }

    /// <summary>How many callers the journal writer released when the write returned.</summary>
    public int Released { get; set; }

    /// <summary>Set last by the journal writer (after the position or the error), read by the merger.</summary>
    public bool Written
    {
        get => _written;
        set => _written = value;
    }

    public void Open(StorageEnvironment environment, EnvironmentState baseState)
    {
        Base = baseState;
        Low = environment.BeginMergedTransaction(baseState, _dirty, _freed);
        Transaction = new WriteTransaction(environment, Low, merged: true);
    }

    /// <summary>Points the open transaction at the published state of the transaction it was opened on.</summary>
    public void Rebase(EnvironmentState published)
    {
        Base = published;
        Low!.Rebase(published);
    }

    /// <summary>
    /// Drops the transaction's changes (not its operations): its pages, and its allocations, which go back
    /// to the free-space map (its on-disk free bits were only in its discarded pages); then opens a fresh
    /// transaction on the same base.
    /// </summary>
    public void Restart(StorageEnvironment environment)
    {
        environment.DiscardMergedTransaction(Low!);
        environment.RollbackMergedAllocations();
        Open(environment, Base!);
    }

    /// <summary>Forgets everything but the buffers: ready for the next transaction.</summary>
    public void Reset()
    {
        Operations.Clear();
        Low = null;
        Transaction = null;
        Base = null;
        Pending = null;
        PreparedOn = null;
        WriteError = null;
        _written = false;
        Released = 0;
        MayBePublished = false;
        QueueWaitTicks = 0;
        MaxQueueWaitTicks = 0;
        Reruns = 0;
        TransactionId = 0;
        EntryLength = 0;
    }

    public void Dispose() => Buffer.Dispose();
}
