using Cairn.Diagnostics;
using Cairn.Journal.Sharing;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>The environment's identity, written in its data file and in every journal entry it commits.</summary>
    public Guid EnvironmentId { get; }

    /// <summary>
    /// This environment's role in a journal group: <see cref="SharedJournalRole.Branch"/> if it was opened with
    /// <see cref="OpenBranch"/>, <see cref="SharedJournalRole.Root"/> while branches are open on it,
    /// <see cref="SharedJournalRole.None"/> otherwise.
    /// </summary>
    public SharedJournalRole JournalGroupRole
        => _groupSeat.IsBranch ? SharedJournalRole.Branch : _groupSeat.BranchCount > 0 ? SharedJournalRole.Root : SharedJournalRole.None;

    /// <summary>Whether this branch's commits still go through its root's journal (false once it fell back to its own, and on any other role).</summary>
    public bool SharesRootJournal => _groupSeat.SharesRootJournal;

    /// <summary>
    /// Opens (creating if needed) the environment in <paramref name="options"/>' directory as a branch of this
    /// one: a complete environment (its own data file, <c>Journals/</c> folder, transaction ids, readers, merger,
    /// flusher) whose journal entries go into this environment's journal writes, many environments' commits in
    /// one vectored write. Each file a branch's entry lands in is hard-linked into the branch's own
    /// <c>Journals/</c> before the commit returns, so the branch can later be opened and recovered alone with
    /// <see cref="Open(StorageOptions)"/>. A branch on another file system, or whose root closes first, writes its own journal
    /// (logged); nothing is lost either way. Close branches before their root to keep sharing to the end.
    /// </summary>
    /// <exception cref="InvalidOperationException">This environment is itself a branch (groups are one level deep).</exception>
    /// <exception cref="DuplicateEnvironmentIdException">
    /// The environment in <paramref name="options"/>' directory has the id of a member of this group (this root, or an open
    /// branch): a plain copy or backup of it. It is refused once its header is read, before anything in its directory is written or replayed.
    /// </exception>
    public StorageEnvironment OpenBranch(StorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        ThrowIfDisposed();
        if (_groupSeat.IsBranch)
            throw new InvalidOperationException($"'{DirectoryPath}' is a branch of a journal group; a branch cannot have branches of its own.");
        if (string.Equals(Path.GetFullPath(options.DirectoryPath), Path.GetFullPath(DirectoryPath), StringComparison.Ordinal))
            throw new ArgumentException($"A branch needs a directory of its own, not its root's ('{DirectoryPath}').", nameof(options));
        var membership = _groupSeat.TryJoin(options.DirectoryPath)
            ?? throw new ObjectDisposedException(nameof(StorageEnvironment), $"'{DirectoryPath}' is closing.");
        try
        {
            var branch = Open(options, membership);
            Log.BranchOpened(branch._logger, branch.DirectoryPath, DirectoryPath);
            return branch;
        }
        catch
        {
            membership.Leave();
            throw;
        }
    }

    /// <summary>Branches open on this root.</summary>
    internal int BranchCount => _groupSeat.BranchCount;

}
