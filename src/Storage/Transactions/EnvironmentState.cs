using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Transactions;

/// <summary>
/// One immutable view of the environment, published atomically by a commit (or by the flusher,
/// which only moves page versions from scratch memory to the data file). A read transaction keeps
/// the state it started with for its whole life, which is all snapshot isolation needs.
/// </summary>
internal sealed class EnvironmentState(
    long transactionId,
    long epoch,
    PageTable pages,
    RootRecord root,
    MappedView view,
    JournalPosition journalPosition,
    EntryLocation? pendingEntry = null)
{
    // Set for a transaction published before its entry was written (a lazy or group commit): where the entry ends
    // once it is. Shared by every state of that transaction (a flush's too). Null otherwise, so a durable commit's
    // state costs no second object.
    private readonly EntryLocation? _pendingEntry = pendingEntry;
    // Final once published; before that, a state built ahead of its commit (the merger's next transaction runs on it
    // while its entry is written) takes both at publication (Seal), since neither is known when it is built.
    private long _epoch = epoch;
    private JournalPosition _journalPosition = journalPosition;
    private bool _sealed;

    /// <summary>The last committed transaction this state shows.</summary>
    public long TransactionId { get; } = transactionId;

    /// <summary>Increases with every published state (commits and flushes), for reclamation.</summary>
    public long Epoch => _epoch;

    /// <summary>Newest committed version of every page whose data-file copy is not current.</summary>
    public PageTable Pages { get; } = pages;

    /// <summary>Where the data starts as of <see cref="TransactionId"/>: what its journal entry and, once synced, the file header hold.</summary>
    public RootRecord Root { get; } = root;

    public long NextPageNumber => Root.NextPageNumber;

    public TreeState RootTree => Root.RootTree;

    public long FreeSpaceDirectoryPage => Root.FreeSpaceDirectoryPage;

    public MappedView View { get; } = view;

    /// <summary>
    /// Just past the journal entry of <see cref="TransactionId"/> (where recovery resumes once this state is
    /// synced). A lazily committed transaction is published before its entry is written: its position is
    /// filled in when the write lands, before the durable watermark passes it, and only states at or below
    /// that watermark are ever flushed and synced (<see cref="StatePublisher.MarkDurable"/>).
    /// </summary>
    public JournalPosition JournalPosition => _pendingEntry?.Position ?? _journalPosition;

    /// <summary>The same transaction with another page table and view: what a flush publishes.</summary>
    public EnvironmentState WithPages(long epoch, PageTable pages, MappedView view)
        => new(TransactionId, epoch, pages, Root, view, _journalPosition, _pendingEntry);

    /// <summary>
    /// A state built ahead of its commit (<c>CommitPipeline.BuildStateAfter</c>, not yet published: only the merger's
    /// next transaction reads it, and never its epoch or position) becomes the published one: it takes its place among
    /// published states and where its entry ended. Called once, under the publisher's lock, before it is published.
    /// </summary>
    public EnvironmentState Seal(long epoch, JournalPosition position)
    {
        if (_sealed)
            throw new InvalidOperationException($"The state of transaction {TransactionId} was published already.");
        _sealed = true;
        _epoch = epoch;
        _journalPosition = position;
        return this;
    }

    /// <summary>
    /// The state after a committed transaction, on this state's view: its entry ends at <paramref name="position"/>,
    /// or, with <paramref name="pendingEntry"/>, wherever that says once the entry is written.
    /// </summary>
    public EnvironmentState Committed(long transactionId, long epoch, PageTable pages, RootRecord root, JournalPosition position,
        EntryLocation? pendingEntry = null)
        => new(transactionId, epoch, pages, root, View, position, pendingEntry);
}
