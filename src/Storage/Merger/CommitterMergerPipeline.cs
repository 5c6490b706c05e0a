using Cairn.Commit;

namespace Cairn.Merger;

/// <summary>
/// The merger's view of an environment's <see cref="TransactionCommitter"/>: its writer lock for a chain of transactions,
/// and transactions that go through the same <see cref="CommitPipeline"/> as <c>WriteTransaction.Commit</c>, its stages
/// split across the merger's threads.
/// </summary>
internal sealed class CommitterMergerPipeline<TTransaction>(TransactionCommitter committer, IMergedTransactionShell<TTransaction> shell)
    : IMergerPipeline<TTransaction> where TTransaction : class
{
    public void EnterWrites() => committer.EnterMergedWrites();

    public void LeaveWrites() => committer.Writer.StopWriting();

    public bool ScratchOverLimit => committer.ScratchOverLimit;

    public void WaitForScratch() => committer.Writer.WaitForScratch();

    public IMergedTransaction<TTransaction> CreateTransaction() => new CommitterMergedTransaction<TTransaction>(committer, shell);

    public Exception FailWrite(Exception error) => committer.Pipeline.FailWrite(error);
}
