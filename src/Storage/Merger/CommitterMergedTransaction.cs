using Cairn.Commit;
using Cairn.Transactions;

namespace Cairn.Merger;

/// <summary>One of the merger's two transactions over a <see cref="TransactionCommitter"/>; it keeps its buffers (dirty pages, freed list, journal entry) from commit to commit.</summary>
internal sealed class CommitterMergedTransaction<TTransaction>(TransactionCommitter committer, IMergedTransactionShell<TTransaction> shell)
    : IMergedTransaction<TTransaction> where TTransaction : class
{
    private readonly DirtyPageMap _dirty = new();
    private readonly List<(long, int)> _freed = [];
    private readonly PreparedCommit _commit = new();
    // Kept from transaction to transaction with its low-level transaction (reopened, not reallocated), and so is the
    // wrapper operations see (rebound to each use of the context): a merged transaction allocates only what its commit
    // publishes.
    private ReadContext? _context;
    private LowLevelTransaction? _low;
    private TTransaction? _wrapper;
    private TTransaction? _transaction;
    // The state it reads through: published, or the state after the transaction in flight.
    private EnvironmentState? _base;

    public TTransaction Transaction => _transaction!;

    public long DirtyPages => _low!.DirtyPageTotal;

    public long TransactionId => _commit.TransactionId;

    public void OpenOnPublished() => Open(committer.Writer.PinNewest());

    public void OpenOnTopOf(IMergedTransaction<TTransaction> inflight)
        => Open(((CommitterMergedTransaction<TTransaction>)inflight)._commit.StateAfter!);

    /// <summary>
    /// The writer's reader slot stays at the last published state it was given, which keeps everything a
    /// state after an in-flight transaction still points at from being reclaimed.
    /// </summary>
    private void Open(EnvironmentState state)
    {
        _base = state;
        committer.Writer.Reclaim();
        if (_context is null)
            _context = new ReadContext(committer.OpenTransaction(state, _dirty, _freed), readerSlot: -1);
        else
            _context.ReopenForWriting(state);
        _low = _context.Low;
        _wrapper = shell.Wrap(_context, _wrapper);
        _transaction = _wrapper;
    }

    public void Rebase()
    {
        var published = committer.Writer.PinNewest();
        _base = published;
        _low!.Rebase(published);
    }

    public void Restart()
    {
        if (_transaction is not null)
            shell.Expire(_transaction);
        committer.Pipeline.Discard(_low!);
        Open(_base!);
    }

    public bool Prepare()
    {
        shell.SaveForCommit(_transaction!);
        committer.Pipeline.Prepare(_low!, _commit);
        if (!_commit.HasEntry)
            return false;
        committer.Pipeline.BuildStateAfter(_commit);
        return true;
    }

    public void Write() => committer.Pipeline.Write(_commit);

    public void Publish() => committer.Pipeline.Publish(_commit);

    public void Discard() => committer.Pipeline.Discard(_low!, _commit);

    public void Expire()
    {
        if (_transaction is not null)
            shell.Expire(_transaction);
    }

    public void Reset()
    {
        Expire();
        _commit.Reset();
        _low = null;
        _transaction = null;
        _base = null;
    }

    public void Dispose() => _commit.Dispose();
}
