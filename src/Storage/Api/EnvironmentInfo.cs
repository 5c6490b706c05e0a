namespace Cairn;

/// <summary>
/// What <see cref="StorageEnvironment.GetInfo"/> saw: the data file, the transaction ids, the trees, page
/// accounting and the journal files on disk, at one moment. Trees and pages come from one snapshot (the last
/// commit); the journal files are listed as the directory stood a moment later.
/// </summary>
/// <param name="DirectoryPath">The environment's directory.</param>
/// <param name="DataFilePath">Its data file.</param>
/// <param name="EnvironmentId">The identity written in the data file and every journal entry.</param>
/// <param name="FormatVersion">The on-disk format version of the data file and its journal entries.</param>
/// <param name="PageSize">Bytes per page.</param>
/// <param name="DataFileBytes">The data file's size on disk (it grows ahead of the pages in use).</param>
/// <param name="LastCommittedTransactionId">The snapshot's transaction: the last one committed.</param>
/// <param name="LastFlushedTransactionId">The last transaction whose pages have all been written to the data file.</param>
/// <param name="LastSyncedTransactionId">The last transaction synced and recorded in the header: what a restart need not replay.</param>
/// <param name="TransactionsReplayedAtOpen">Transactions recovery replayed from the journals when this environment was opened.</param>
/// <param name="HighWaterMark">Pages that have ever been allocated (pages 0 and 1 are the header copies); the rest of the file is unused.</param>
/// <param name="PagesInUse">Pages below the high-water mark that hold something: headers, free-space map, trees, overflow values.</param>
/// <param name="FreePages">Free pages the writer can hand out now.</param>
/// <param name="PagesWaitingForReaders">
/// Freed pages not yet allocatable: read transactions may still see them, or (once those ended) the next write
/// transaction has yet to take them back.
/// </param>
/// <param name="Trees">Every named tree, in name order.</param>
/// <param name="Journals">The files in <c>Journals/</c>, journals in sequence order first, then those kept for reuse.</param>
/// <param name="SharedJournalRole">Whether this environment is a journal group's root or branch (a relationship of this process only).</param>
/// <param name="OpenBranches">For a root: the branches open on it now.</param>
/// <param name="SharesRootJournal">For a branch: whether its commits still go through its root's journal.</param>
public sealed record EnvironmentInfo(
    string DirectoryPath,
    string DataFilePath,
    Guid EnvironmentId,
    int FormatVersion,
    int PageSize,
    long DataFileBytes,
    long LastCommittedTransactionId,
    long LastFlushedTransactionId,
    long LastSyncedTransactionId,
    long TransactionsReplayedAtOpen,
    long HighWaterMark,
    long PagesInUse,
    long FreePages,
    long PagesWaitingForReaders,
    IReadOnlyList<TreeInfo> Trees,
    IReadOnlyList<EnvironmentJournalFile> Journals,
    SharedJournalRole SharedJournalRole,
    int OpenBranches,
    bool SharesRootJournal)
{
    /// <summary>
    /// A read-only environment's <see cref="ReadOnlyEnvironment.JournalTail"/>: the journal ends in an invalid entry,
    /// left as it is. Always null from <see cref="StorageEnvironment.GetInfo"/>, whose open cut such a tail off (and logged it).
    /// </summary>
    public JournalTailDamage? JournalTail { get; init; }
}

/// <summary>
/// Where a journal ends in an invalid entry with nothing valid after it: a write torn by a crash (never acknowledged),
/// or a damaged acknowledged entry. Its bytes cannot tell which; a writable open cuts it off, a read-only one reports it.
/// </summary>
/// <param name="FilePath">The journal file.</param>
/// <param name="Offset">The invalid entry's offset in it.</param>
/// <param name="TransactionId">The entry's transaction when its header is intact (only its payload fails), otherwise null.</param>
/// <param name="Problem">What is wrong with it.</param>
public sealed record JournalTailDamage(string FilePath, long Offset, long? TransactionId, string Problem)
{
    /// <summary>"damaged or torn: FILE, offset N, transaction T" (transaction "unknown" when the header is not intact).</summary>
    public override string ToString()
        => $"damaged or torn: {FilePath}, offset {Offset}, transaction {(TransactionId is { } id ? id.ToString(System.Globalization.CultureInfo.InvariantCulture) : "unknown")}";
}

/// <summary>One named tree in <see cref="EnvironmentInfo.Trees"/>.</summary>
/// <param name="Name">The tree's name.</param>
/// <param name="Entries">Its entries.</param>
/// <param name="Depth">Levels from the root to a leaf; 1 for a tree that is a single leaf.</param>
/// <param name="BranchPages">Pages of its branch (inner) nodes.</param>
/// <param name="LeafPages">Pages of its leaves.</param>
/// <param name="OverflowPages">Pages holding values too large for a leaf.</param>
public sealed record TreeInfo(string Name, long Entries, int Depth, long BranchPages, long LeafPages, long OverflowPages);

/// <summary>One file in the environment's <c>Journals/</c> folder, in <see cref="EnvironmentInfo.Journals"/>.</summary>
/// <param name="FileName">Its name in the folder.</param>
/// <param name="FilePath">Its full path.</param>
/// <param name="Number">A journal's sequence number, or the number of a file kept for reuse.</param>
/// <param name="IsRecyclable">A synced journal (or a prepared spare) kept for reuse, which recovery never reads.</param>
/// <param name="Bytes">Its size (journals are pre-allocated: the size, not how much of it holds entries).</param>
/// <param name="LinkCount">
/// Its names on the file system: above 1 for a journal shared within a journal group (a root's journal file
/// hard-linked into its branches' folders; docs/design.md, "Journal groups").
/// </param>
public sealed record EnvironmentJournalFile(string FileName, string FilePath, long Number, bool IsRecyclable, long Bytes, long LinkCount);

/// <summary>An environment's place in a journal group (<see cref="StorageEnvironment.OpenBranch"/>).</summary>
public enum SharedJournalRole
{
    /// <summary>Neither: it writes its own journal and no branch is open on it.</summary>
    None,

    /// <summary>A root with branches open on it, whose commits go into its journal writes.</summary>
    Root,

    /// <summary>A branch opened on a root.</summary>
    Branch,
}
