using Cairn.Diagnostics;
using Cairn.Journal.Sharing;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    // Guards creating this environment's journal group (on the first OpenBranch) against a concurrent close.
    private readonly Lock _groupGate = new();
    // As a root: the group its branches write through (null until the first branch).
    private JournalGroup? _group;
    private bool _groupClosed;
    // As a branch: its place in its root's group (null once it left).
    private GroupMembership? _membership;

    /// <summary>The environment's identity, written in its data file and in every journal entry it commits.</summary>
    public Guid EnvironmentId { get; }

    /// <summary>Whether this environment was opened as a branch of another (<see cref="OpenBranch"/>).</summary>
    public bool IsBranch => _journalMember is { IsRoot: false };

    /// <summary>Whether this branch's commits still go through its root's journal (false once it fell back to its own).</summary>
    public bool SharesRootJournal => _journalMember is { IsRoot: false, Sharing: true };

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
        ThrowIfReplica("OpenBranch");
        if (IsBranch)
            throw new InvalidOperationException($"'{DirectoryPath}' is a branch of a journal group; a branch cannot have branches of its own.");
        if (string.Equals(Path.GetFullPath(options.DirectoryPath), Path.GetFullPath(DirectoryPath), StringComparison.Ordinal))
            throw new ArgumentException($"A branch needs a directory of its own, not its root's ('{DirectoryPath}').", nameof(options));
        GroupMembership membership;
        lock (_groupGate)
        {
            ThrowIfDisposed();
            if (_groupClosed)
                throw new ObjectDisposedException(nameof(StorageEnvironment), $"'{DirectoryPath}' is closing.");
            _group ??= CreateGroup();
            membership = _group.TryJoin(options.DirectoryPath)
                ?? throw new ObjectDisposedException(nameof(StorageEnvironment), $"'{DirectoryPath}' is closing.");
        }
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
    internal int BranchCount
    {
        get
        {
            lock (_groupGate)
                return _group?.BranchCount ?? 0;
        }
    }

    /// <summary>Test hook: the group this root's branches write through (null before its first branch), to hold its writes.</summary>
    internal JournalGroup? GroupForTesting
    {
        get
        {
            lock (_groupGate)
                return _group;
        }
    }

    /// <summary>Test hook: this environment's own journal (a root's group writes go through it), to inject failures.</summary>
    internal Journal.Files.WriteAheadJournal JournalForTesting => _journal;

    /// <summary>Test hook: where the commit's write stage appends (this environment's own journal while it stands alone).</summary>
    internal Journal.Files.IJournalAppender CommitJournalForTesting => _committer.Journal;

    private JournalGroup CreateGroup()
    {
        var group = new JournalGroup(_journal, EnvironmentId, DirectoryPath, _options.JournalGroupMaxEntriesPerWrite, _options.JournalGroupMaxBytesPerWrite,
            _options.JournalGroupMaxWritesInFlight);
        // From the first branch on, the root's own entries go through the group too (before any branch writes).
        var member = new JournalGroupMember(_journal, EnvironmentId, isRoot: true, IoStats, _logger);
        member.Attach(group);
        _journalMember = member;
        _committer.WriteThrough(member);
        return group;
    }

    /// <summary>As a root that is closing: branches write their own journals from now on; what is pending is written first.</summary>
    private void CloseJournalGroup()
    {
        JournalGroup? group;
        lock (_groupGate)
        {
            _groupClosed = true;
            group = _group;
        }
        group?.Close();
    }

    private void LeaveJournalGroup() => Interlocked.Exchange(ref _membership, null)?.Leave();
}
