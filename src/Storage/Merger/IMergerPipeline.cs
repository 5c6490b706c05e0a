namespace Cairn.Merger;

/// <summary>
/// What the merger needs of the engine: the write lock for a chain of transactions, and transactions it
/// can run the commit pipeline's stages on. The environment implements it over its commit pipeline; a
/// test implements it to drive the merger on its own.
/// </summary>
/// <typeparam name="TTransaction">What callers' operations receive (the environment's <c>WriteTransaction</c>).</typeparam>
internal interface IMergerPipeline<TTransaction> where TTransaction : class
{
    /// <summary>Takes the write lock for a chain of merged transactions; throws if the environment takes no writes.</summary>
    void EnterWrites();

    /// <summary>Ends the chain: the write lock goes.</summary>
    void LeaveWrites();

    /// <summary>Scratch memory is over its limit: the merger lets what is in flight finish, then calls <see cref="WaitForScratch"/>.</summary>
    bool ScratchOverLimit { get; }

    /// <summary>With nothing in flight: waits until scratch memory is under its limit (or throws).</summary>
    void WaitForScratch();

    /// <summary>One of the merger's (reused) transactions.</summary>
    IMergedTransaction<TTransaction> CreateTransaction();

    /// <summary>A journal write failed: fails the environment and returns the error every waiting caller gets.</summary>
    Exception FailWrite(Exception error);
}

/// <summary>
/// One merged transaction as the merger drives it through the commit pipeline. The merger opens it on the
/// newest published state, or on top of the transaction whose journal write is in flight; runs operations
/// on <see cref="Transaction"/>; prepares it; hands it to the journal writer thread, which writes and
/// publishes it.
/// </summary>
internal interface IMergedTransaction<TTransaction> : IDisposable where TTransaction : class
{
    TTransaction Transaction { get; }

    /// <summary>Pages its commit will carry (for the batch-size bound).</summary>
    long DirtyPages { get; }

    /// <summary>Its id once prepared (a transaction that changed nothing keeps the id it read).</summary>
    long TransactionId { get; }

    /// <summary>Opens on the newest published state.</summary>
    void OpenOnPublished();

    /// <summary>Opens on the state <paramref name="inflight"/> (prepared, being written) leads to.</summary>
    void OpenOnTopOf(IMergedTransaction<TTransaction> inflight);

    /// <summary>The transaction it was opened on top of is published: read through the published state from now on.</summary>
    void Rebase();

    /// <summary>Drops its changes and its allocations, then opens afresh on the same state.</summary>
    void Restart();

    /// <summary>The prepare stage; false when it changed nothing (nothing to write, nothing to publish).</summary>
    bool Prepare();

    /// <summary>The write stage (on the journal writer's thread).</summary>
    void Write();

    /// <summary>The publish stage (on the journal writer's thread, right after the write).</summary>
    void Publish();

    /// <summary>Drops an unpublished transaction (its callers have failed).</summary>
    void Discard();

    /// <summary>
    /// Its operations are answered (done or failed): a tree or cursor one of them kept throws from now on. Before the
    /// answers, not at <see cref="Reset"/>, which comes when the slot is reused: a caller back from its await would
    /// otherwise still read through a transaction the merger has finished with.
    /// </summary>
    void Expire();

    /// <summary>Forgets the transaction: ready to open again.</summary>
    void Reset();
}
