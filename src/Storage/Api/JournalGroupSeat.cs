using Cairn.Commit;
using Cairn.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Journal.Sharing;
using Microsoft.Extensions.Logging;

namespace Cairn;

/// <summary>
/// An environment's place in a journal group: as a root, the group its branches write through (created on the first
/// branch); as a branch, its membership in its root's group. Kept out of <see cref="StorageEnvironment"/>, which asks it
/// to let a branch join, to close the group and to leave it. A standalone environment's commits write its own journal
/// directly; a root's switch to the group (through <paramref name="committer"/>) when its first branch joins.
/// </summary>
internal sealed class JournalGroupSeat(WriteAheadJournal journal, JournalGroupMember? branchMember, Guid environmentId, string directory,
    StorageOptions options, GroupMembership? membership, TransactionCommitter committer, IoStats ioStats, ILogger logger) : IDisposable
{
    // The group member the commits write through: a branch's from the open, a root's from its first branch (set under _gate).
    private JournalGroupMember? _member = branchMember;

    // Guards creating the group (on the first branch) against a concurrent close, and the closed flag.
    private readonly Lock _gate = new();
    // As a root: the group its branches write through (null until the first branch).
    private JournalGroup? _group;
    private bool _closed;
    // As a branch: its place in its root's group (null once it left).
    private GroupMembership? _membership = membership;

    // A branch's member, kept apart from _member: whether this is a branch never changes.
    private readonly JournalGroupMember? _branchMember = branchMember;

    public bool IsBranch => _branchMember is not null;

    /// <summary>Whether this branch's commits still go through its root's journal (false once it fell back to its own).</summary>
    public bool SharesRootJournal => _branchMember is { Sharing: true };

    /// <summary>Branches open on this root.</summary>
    public int BranchCount
    {
        get
        {
            lock (_gate)
                return _group?.BranchCount ?? 0;
        }
    }

    /// <summary>The group this root's branches write through (null before its first branch).</summary>
    public JournalGroup? Group
    {
        get
        {
            lock (_gate)
                return _group;
        }
    }

    /// <summary>A place in this root's group for a branch in <paramref name="branchDirectory"/>; null once the root is closing.</summary>
    public GroupMembership? TryJoin(string branchDirectory)
    {
        lock (_gate)
        {
            if (_closed)
                return null;
            if (_group is null)
            {
                _group = new JournalGroup(journal, environmentId, directory, options.JournalGroupMaxWriteEntries,
                    options.JournalGroupMaxWriteBytes, options.JournalGroupMaxInFlightWrites);
                // From the first branch on, the root's own entries go through the group too (before any branch writes).
                var rootMember = new JournalGroupMember(journal, environmentId, isRoot: true, ioStats, logger);
                rootMember.Attach(_group);
                _member = rootMember;
                committer.WriteThrough(rootMember);
            }
            return _group.TryJoin(branchDirectory);
        }
    }

    /// <summary>As a root that is closing: branches write their own journals from now on; what is pending is written first.</summary>
    public void Close()
    {
        JournalGroup? group;
        lock (_gate)
        {
            _closed = true;
            group = _group;
        }
        group?.Close();
    }

    /// <summary>As a branch: leaves its root's group (once).</summary>
    public void Leave() => Interlocked.Exchange(ref _membership, null)?.Leave();

    /// <summary>With the environment's other resources, after its last commit.</summary>
    public void Dispose()
    {
        JournalGroupMember? member;
        lock (_gate)
            member = _member;
        member?.Dispose();
    }
}
