using Cairn.Commit;
using Cairn.Merger;
using Cairn.Transactions;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// The transaction merger's view of this environment: the writer lock for a chain of transactions, and
    /// transactions that go through the same <see cref="CommitPipeline"/> as <see cref="WriteTransaction.Commit()"/>,
    /// its stages split across the merger's threads.
    /// </summary>
    private sealed class MergedWrites(StorageEnvironment environment) : IMergerPipeline<WriteTransaction>
    {
        public void EnterWrites()
        {
            environment._failure.ThrowIfFailed();
            environment._writer.Acquire();
            environment._writer.StartWriting();
        }

        public void LeaveWrites() => environment._writer.StopWriting();

        public bool ScratchOverLimit => environment._budget.OverLimit;

        public void WaitForScratch() => environment._writer.WaitForScratch();

        public IMergedTransaction<WriteTransaction> CreateTransaction() => new MergedWriteTransaction(environment);

        public Exception FailWrite(Exception error) => environment._pipeline.FailWrite(error);
    }

    /// <summary>One of the merger's two transactions; it keeps its buffers (dirty pages, freed list, journal entry) from commit to commit.</summary>
    private sealed class MergedWriteTransaction(StorageEnvironment environment) : IMergedTransaction<WriteTransaction>
    {
        private readonly Dictionary<long, LowLevelTransaction.DirtyRun> _dirty = [];
        private readonly List<(long, int)> _freed = [];
        private readonly PreparedCommit _commit = new();
        private LowLevelTransaction? _low;
        private WriteTransaction? _transaction;
        // The state it reads through: published, or the state after the transaction in flight.
        private EnvironmentState? _base;

        public WriteTransaction Transaction => _transaction!;

        public long DirtyPages => _low!.DirtyPageTotal;

        public long TransactionId => _commit.TransactionId;

        public void OpenOnPublished() => Open(environment._writer.PinNewest());

        public void OpenOnTopOf(IMergedTransaction<WriteTransaction> inflight)
            => Open(((MergedWriteTransaction)inflight)._commit.StateAfter!);

        /// <summary>
        /// The writer's reader slot stays at the last published state it was given, which keeps everything a
        /// state after an in-flight transaction still points at from being reclaimed.
        /// </summary>
        private void Open(EnvironmentState state)
        {
            _base = state;
            environment._writer.Reclaim();
            _low = LowLevelTransaction.ForWriting(environment._dataFile, environment._scratch, state, environment._freeSpace, _dirty, _freed);
            _transaction = new WriteTransaction(environment, _low, merged: true);
        }

        public void Rebase()
        {
            var published = environment._writer.PinNewest();
            _base = published;
            _low!.Rebase(published);
        }

        public void Restart()
        {
            _transaction?.Expire();
            environment._pipeline.Discard(_low!);
            Open(_base!);
        }

        public bool Prepare()
        {
            _transaction!.SaveForMergedCommit();
            environment._pipeline.Prepare(_low!, _commit);
            if (!_commit.HasEntry)
                return false;
            environment._pipeline.BuildStateAfter(_commit);
            return true;
        }

        public void Write() => environment._pipeline.Write(_commit);

        public void Publish() => environment._pipeline.Publish(_commit);

        public void Discard() => environment._pipeline.Discard(_low!, _commit);

        public void Reset()
        {
            // An operation that kept a tree or cursor past its batch gets ObjectDisposedException, not the next batch's pages.
            _transaction?.Expire();
            _commit.Reset();
            _low = null;
            _transaction = null;
            _base = null;
        }

        public void Dispose() => _commit.Dispose();
    }
}
