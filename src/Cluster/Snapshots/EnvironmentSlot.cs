namespace Cairn.Cluster.Snapshots;

/// <summary>
/// The node's environment, which installing a snapshot replaces while the node runs. Reads begin through the slot;
/// during a replacement they wait until the new environment is open (a replacement closes the old one first, which
/// needs its open transactions and backups to end).
/// </summary>
internal sealed class EnvironmentSlot
{
    private static readonly TimeSpan IdlePoll = TimeSpan.FromMilliseconds(10);
    private readonly object gate = new(); // protects current and failure; a read begins under it, a replacement empties current under it
    private StorageEnvironment? current;
    private Exception? failure;

    public EnvironmentSlot(StorageEnvironment environment) => current = environment;

    /// <summary>
    /// The environment now. The applier writes through it (DotNext never applies while it installs a snapshot, and
    /// the install is what replaces it); a leader's snapshot stream backs it up.
    /// </summary>
    public StorageEnvironment Current
    {
        get
        {
            lock (gate)
                return Present();
        }
    }

    /// <summary>
    /// False once a replacement could neither open the new environment nor reopen the old one, or the slot was closed:
    /// the node has no environment to go on with. True during a replacement, which ends with one or the other.
    /// </summary>
    public bool HoldsEnvironment
    {
        get
        {
            lock (gate)
                return failure is null;
        }
    }

    /// <summary>A read transaction on the environment now (waits out a replacement).</summary>
    public ReadTransaction BeginRead()
    {
        lock (gate)
            return Present().BeginRead();
    }

    /// <summary>
    /// Closes the environment once no transaction or backup holds it, then opens its replacement with
    /// <paramref name="swapAndOpen"/> (which moves the folders and opens the new one). If that throws, the environment
    /// <paramref name="reopen"/> returns takes its place (the folders as recovery leaves them) and the error is thrown.
    /// </summary>
    public async Task ReplaceAsync(Func<StorageEnvironment> swapAndOpen, Func<StorageEnvironment> reopen)
    {
        StorageEnvironment old;
        lock (gate)
        {
            old = Present();
            current = null;
        }

        StorageEnvironment? next = null;
        Exception? lost = null;
        try
        {
            await CloseWhenIdleAsync(old).ConfigureAwait(false);
            try
            {
                next = swapAndOpen();
            }
            catch (Exception swapFailure)
            {
                try
                {
                    next = reopen();
                }
                catch (Exception reopenFailure)
                {
                    lost = new IOException("The node's environment could not be reopened after a failed snapshot install.", new AggregateException(swapFailure, reopenFailure));
                }

                throw;
            }
        }
        finally
        {
            lock (gate)
            {
                current = next;
                failure = lost;
                Monitor.PulseAll(gate);
            }
        }
    }

    /// <summary>Closes the environment (at the node's end).</summary>
    public async ValueTask DisposeAsync()
    {
        StorageEnvironment? closing;
        lock (gate)
        {
            closing = current;
            current = null;
            failure ??= new ObjectDisposedException("The node's environment is closed.");
            Monitor.PulseAll(gate);
        }

        if (closing is not null)
            await closing.DisposeAsync().ConfigureAwait(false);
    }

    private StorageEnvironment Present()
    {
        while (true)
        {
            if (failure is not null)
                throw failure is ObjectDisposedException ? new ObjectDisposedException(failure.Message) : new IOException(failure.Message, failure);
            if (current is not null)
                return current;
            Monitor.Wait(gate);
        }
    }

    /// <summary>
    /// Readers and a leader's snapshot stream end on their own (a read is short; a stream ends or fails with its
    /// connection), so the close is retried until they have; no deadline, as a reader kept open for ever would keep
    /// the old environment for ever anyway.
    /// </summary>
    private static async Task CloseWhenIdleAsync(StorageEnvironment environment)
    {
        while (true)
        {
            try
            {
                await environment.DisposeAsync().ConfigureAwait(false);
                return;
            }
            catch (Exception e) when (e is LiveTransactionsException or BackupRunningException)
            {
                await Task.Delay(IdlePoll).ConfigureAwait(false);
            }
        }
    }
}
