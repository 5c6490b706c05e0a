namespace Cairn;

/// <summary>
/// What <see cref="StorageEnvironment.GetInfo"/> saw: the data file, the transaction ids, the trees, page
/// accounting and the journal files on disk, at one moment. Trees and pages come from one snapshot (the last
/// commit); the journal files are listed as the directory stood a moment later.
/// </summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public sealed record EnvironmentInfo
{
    /// <summary>The environment's directory.</summary>
    public required string DirectoryPath { get; init; }

    /// <summary>Its data file.</summary>
    public required string DataFilePath { get; init; }

    /// <summary>The identity written in the data file and every journal entry.</summary>
    public required Guid EnvironmentId { get; init; }

    /// <summary>The on-disk format version of the data file and its journal entries.</summary>
    public required int FormatVersion { get; init; }

    /// <summary>Bytes per page.</summary>
    public required int PageSize { get; init; }

    /// <summary>The data file's size on disk (it grows ahead of the pages in use).</summary>
    public required long DataFileBytes { get; init; }

    /// <summary>The snapshot's transaction: the last one committed.</summary>
    public required long LastCommittedTransactionId { get; init; }

    /// <summary>The last transaction whose pages have all been written to the data file.</summary>
    public required long LastFlushedTransactionId { get; init; }

    /// <summary>The last transaction synced and recorded in the header: what a restart need not replay.</summary>
    public required long LastSyncedTransactionId { get; init; }

    /// <summary>Transactions recovery replayed from the journals when this environment was opened.</summary>
    public required long TransactionsReplayedAtOpen { get; init; }

    /// <summary>Pages that have ever been allocated (pages 0 and 1 are the header copies); the rest of the file is unused.</summary>
    public required long HighWaterMark { get; init; }

    /// <summary>Pages below the high-water mark that hold something: headers, free-space map, trees, overflow values.</summary>
    public required long PagesInUse { get; init; }

    /// <summary>Free pages the writer can hand out now.</summary>
    public required long FreePages { get; init; }

    /// <summary>/// Freed pages not yet allocatable: read transactions may still see them, or (once those ended) the next write transaction has yet to take them back. </summary>
    public required long PagesWaitingForReaders { get; init; }

    /// <summary>Every named tree, in name order.</summary>
    public required IReadOnlyList<TreeInfo> Trees { get; init; }

    /// <summary>The files in <c>Journals/</c>, journals in sequence order first, then those kept for reuse.</summary>
    public required IReadOnlyList<EnvironmentJournalFile> Journals { get; init; }

    /// <summary>Whether this environment is a journal group's root or branch (a relationship of this process only).</summary>
    public required SharedJournalRole SharedJournalRole { get; init; }

    /// <summary>For a root: the branches open on it now.</summary>
    public required int OpenBranches { get; init; }

    /// <summary>For a branch: whether its commits still go through its root's journal.</summary>
    public required bool SharesRootJournal { get; init; }

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
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public sealed record TreeInfo
{
    /// <summary>The tree's name.</summary>
    public required string Name { get; init; }

    /// <summary>Its entries.</summary>
    public required long Entries { get; init; }

    /// <summary>Levels from the root to a leaf; 1 for a tree that is a single leaf.</summary>
    public required int Depth { get; init; }

    /// <summary>Pages of its branch (inner) nodes.</summary>
    public required long BranchPages { get; init; }

    /// <summary>Pages of its leaves.</summary>
    public required long LeafPages { get; init; }

    /// <summary>Pages holding values too large for a leaf.</summary>
    public required long OverflowPages { get; init; }
}

/// <summary>One file in the environment's <c>Journals/</c> folder, in <see cref="EnvironmentInfo.Journals"/>.</summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public sealed record EnvironmentJournalFile
{
    /// <summary>Its name in the folder.</summary>
    public required string FileName { get; init; }

    /// <summary>Its full path.</summary>
    public required string FilePath { get; init; }

    /// <summary>A journal's sequence number, or the number of a file kept for reuse.</summary>
    public required long Number { get; init; }

    /// <summary>A synced journal (or a prepared spare) kept for reuse, which recovery never reads.</summary>
    public required bool IsRecyclable { get; init; }

    /// <summary>Its size (journals are pre-allocated: the size, not how much of it holds entries).</summary>
    public required long Bytes { get; init; }

    /// <summary>Its names on the file system: above 1 for a journal shared within a journal group (a root's journal file hard-linked into its branches' folders; docs/design.md, "Journal groups").</summary>
    public required long LinkCount { get; init; }
}

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
