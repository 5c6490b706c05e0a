namespace Cairn.Bench.Durability.Concurrent;

/// <summary>How a concurrent-commit case drives its store.</summary>
public static class CommitCallersFor
{
    /// <summary>
    /// A store with an asynchronous API is driven by awaiting tasks (its name ends in
    /// <see cref="DurableStores.AsyncSuffix"/>); every other by blocked threads.
    /// </summary>
    public static ICommitCallers Create(string storeName, IDurableStore store, int callerCount, int putsPerCaller)
        => storeName.EndsWith(DurableStores.AsyncSuffix, StringComparison.Ordinal) && store is IAsyncDurableStore asyncStore
            ? new AsyncCommitCallers(asyncStore, callerCount, putsPerCaller)
            : new CommitCallers(store, callerCount, putsPerCaller);
}
