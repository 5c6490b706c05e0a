using Cairn.Trees;

namespace Cairn;

/// <summary>
/// The environment's only write transaction. Changes are visible to it at once and to nobody else
/// until <see cref="Commit()"/>; disposing it without committing aborts and leaves no trace.
/// </summary>
public sealed class WriteTransaction : ReadTransaction
{
    private readonly bool _merged;
    private bool _completed;
    // A merged transaction's wrapper serves every transaction of its merger slot (RebindForMerger), so a wrapper an
    // operation kept cannot be told from the current one by its generation: what tells them apart is where it is used.
    // It is usable only inside an operation, on the thread running it (the merger's); 0 between operations.
    private int _operationThread;

    /// <param name="environment">The environment it commits to.</param>
    /// <param name="low">The page-level transaction it writes through.</param>
    /// <param name="merged">
    /// The transaction merger's: shared by many callers' operations, committed and discarded by the
    /// merger only (an operation that commits or disposes it gets an exception).
    /// </param>
    internal WriteTransaction(StorageEnvironment environment, Transactions.LowLevelTransaction low, bool merged = false)
        : this(environment, new Transactions.ReadContext(low, readerSlot: -1), merged)
    {
    }

    /// <summary>Over a writer's context kept from transaction to transaction (the merger's), whose previous use has ended.</summary>
    internal WriteTransaction(StorageEnvironment environment, Transactions.ReadContext context, bool merged)
        : base(environment, context)
    {
        Environment = environment;
        _merged = merged;
    }

    /// <summary>The environment it commits to.</summary>
    internal StorageEnvironment Environment { get; }

    private protected override bool CanDispose => !_merged;

    private protected override bool InUse => !_merged || _operationThread == System.Environment.CurrentManagedThreadId;

    /// <summary>The merger's slot opened its next transaction on this wrapper's context: this wrapper is that transaction now.</summary>
    internal WriteTransaction RebindForMerger()
    {
        Rebind();
        return this;
    }

    /// <summary>An operation starts running on this merged transaction, on this thread: until <see cref="LeaveOperation"/>, it may be used here.</summary>
    internal void EnterOperation() => _operationThread = System.Environment.CurrentManagedThreadId;

    internal void LeaveOperation() => _operationThread = 0;

    /// <summary>Opens the tree, creating an empty one if there is none by that name.</summary>
    public Tree CreateTree(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ThrowIfDisposed();
        if (TryOpenTree(name, out var existing))
            return existing;
        var state = BTree.CreateEmpty(Low);
        TreeDirectory.Write(RootTree, name, state);
        return OpenTree(name);
    }

    /// <summary>Deletes a tree and frees all its pages; returns false if there was none.</summary>
    public bool DeleteTree(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ThrowIfDisposed();
        if (!TryOpenTree(name, out var tree))
            return false;
        tree.Inner.FreeAllPages();
        ForgetTree(name);
        TreeDirectory.Remove(RootTree, name);
        return true;
    }

    /// <summary>
    /// The id this transaction commits as, if it changes anything: <see cref="ReadTransaction.TransactionId"/> (the
    /// snapshot it reads) + 1, the same on every path: <see cref="Commit()"/> returns it, durable or lazy, alone or
    /// group-committed with other writers, and an operation of a merged transaction
    /// (<see cref="StorageEnvironment.WriteAsync{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>,
    /// <see cref="StorageEnvironment.Write{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>) reads
    /// here the id of the transaction it ends up in (every operation of a batch reads the same one). It is the id
    /// <see cref="StorageEnvironment.LastCommittedTransactionId"/>, <see cref="BackupResult.TransactionId"/>, shipped
    /// entries and a replica's <see cref="ReplicaEnvironment.LastAppliedTransactionId"/> count in: a backup or replica at
    /// this id or later holds the transaction. A branch numbers its own transactions. A transaction that changes
    /// nothing commits no transaction of its own (nothing is written; <see cref="Commit()"/> then returns the id it read).
    /// </summary>
    public long CommitTransactionId => TransactionId + 1;

    /// <summary>
    /// Publishes every change atomically: readers that begin after this see all of it, earlier ones none.
    /// Durable when it returns, unless <see cref="StorageOptions.CommitMode"/> is <see cref="CommitMode.Lazy"/>.
    /// </summary>
    /// <returns>The committed transaction's id (<see cref="CommitTransactionId"/>), or, if it changed nothing, the id it read.</returns>
    public long Commit() => Commit(Environment.DefaultCommitMode);

    /// <summary>
    /// Publishes every change atomically, as <see cref="Commit()"/> does; <paramref name="mode"/> says whether
    /// it returns once the transaction is durable (<see cref="CommitMode.Durable"/>) or once it is published
    /// and its journal entry queued (<see cref="CommitMode.Lazy"/>).
    /// </summary>
    /// <param name="mode">Durable, or lazy (see <see cref="CommitMode"/> for what a crash keeps).</param>
    /// <returns>The committed transaction's id (<see cref="CommitTransactionId"/>), or, if it changed nothing, the id it read.</returns>
    /// <exception cref="EnvironmentFailedException">The journal write failed (the outcome of this and of lazily committed transactions before it is unknown until the environment is reopened).</exception>
    /// <exception cref="DiskFullException">The journal write found the disk full: the transaction was rolled back (durable mode, nothing lazy queued).</exception>
    public long Commit(CommitMode mode)
    {
        ThrowIfDisposed();
        if (_merged)
            throw new InvalidOperationException("This transaction belongs to the transaction merger, which commits it with its batch: return from the operation instead.");
        if (_completed)
            throw new InvalidOperationException("This transaction has already been committed.");
        SaveTreeStates();
        _completed = true;
        long committed = Environment.Commit(Low, mode);
        Dispose();
        return committed;
    }

    /// <summary>The merger's commit, first step: the trees' root pages and counts go into the root tree.</summary>
    internal void SaveForMergedCommit() => SaveTreeStates();

    private void SaveTreeStates()
    {
        foreach (var (name, tree) in OpenTrees)
        {
            if (tree.IsModified)
                TreeDirectory.Write(RootTree, name, tree.State);
        }
        Low.RootTree = RootTree.State;
    }

    private protected override void OnDispose()
    {
        if (!_completed)
        {
            _completed = true;
            Environment.Abort(Low);
        }
    }
}
