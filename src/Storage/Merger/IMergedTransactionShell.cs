using Cairn.Transactions;

namespace Cairn.Merger;

/// <summary>
/// What callers' operations hold around a merged low-level transaction (the environment's <c>WriteTransaction</c>):
/// the one thing <see cref="CommitterMergerPipeline{TTransaction}"/> cannot make itself, since it lies above the merger.
/// </summary>
internal interface IMergedTransactionShell<TTransaction> where TTransaction : class
{
    /// <summary>
    /// A transaction for operations, writing through <paramref name="context"/>; the merger commits and discards it. The
    /// merger keeps each context from transaction to transaction, and the wrapper with it: <paramref name="kept"/>, the
    /// wrapper of the context's previous use (ended), is made the new use's (null the first time: a new one). A kept
    /// wrapper is usable only inside an operation, on the thread running it, so one an operation kept still throws
    /// wherever it is used outside one.
    /// </summary>
    TTransaction Wrap(ReadContext context, TTransaction? kept);

    /// <summary>The prepare stage's first step: what the operations changed above the page level goes into <paramref name="transaction"/>'s pages.</summary>
    void SaveForCommit(TTransaction transaction);

    /// <summary>Its batch is over: an operation that kept a tree or cursor past it gets ObjectDisposedException, not the next batch's pages.</summary>
    void Expire(TTransaction transaction);
}
