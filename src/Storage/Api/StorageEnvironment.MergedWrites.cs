using Cairn.Merger;
using Cairn.Transactions;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>The merger's transactions as callers' operations see them: this environment's <see cref="WriteTransaction"/>.</summary>
    private sealed class MergedWriteTransactions(StorageEnvironment environment) : IMergedTransactionShell<WriteTransaction>
    {
        public WriteTransaction Wrap(LowLevelTransaction low) => new(environment, low, merged: true);

        public void SaveForCommit(WriteTransaction transaction) => transaction.SaveForMergedCommit();

        public void Expire(WriteTransaction transaction) => transaction.Expire();
    }
}
