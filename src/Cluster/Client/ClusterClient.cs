namespace Cairn.Cluster;

/// <summary>
/// A client session of a replicated environment: it finds the leader (following the hint a follower gives, else
/// trying each node), retries a write until it is acknowledged or the caller gives up, always with the same
/// <see cref="OperationId"/> so the cluster applies it at most once, and serves reads linearizably from any node or
/// bounded-stale after the session's own last write. One write at a time per session (the dedup table keeps one
/// sequence per client); use one client per concurrent caller.
/// </summary>
public sealed class ClusterClient : IDisposable
{
    private readonly IReadOnlyList<IClusterNodeConnection> nodes;
    private readonly ClusterClientOptions options;
    private readonly SemaphoreSlim oneWriteAtATime = new(1, 1); // protects session, sequence and lastWriteIndex
    private Guid session = Guid.NewGuid();
    private long sequence;
    private long lastWriteIndex;
    private int preferred; // the node tried first: the last that took a request; written racily, only a hint

    /// <param name="nodes">A connection to each node of the cluster.</param>
    /// <param name="options">Retry settings; null for the defaults.</param>
    public ClusterClient(IReadOnlyList<IClusterNodeConnection> nodes, ClusterClientOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(nodes);
        if (nodes.Count == 0)
            throw new ArgumentException("A client needs at least one node.", nameof(nodes));
        this.options = options ?? new ClusterClientOptions();
        this.options.Validate();
        this.nodes = nodes.ToArray();
    }

    /// <summary>The log index of this session's last acknowledged write (0 before any).</summary>
    public long LastWriteIndex => Volatile.Read(ref lastWriteIndex);

    /// <summary>
    /// Applies <paramref name="operations"/> to <paramref name="tree"/> once, retrying through leader changes until a
    /// majority holds it and a node has applied it.
    /// </summary>
    /// <exception cref="WriteOutcomeUnknownException">The caller cancelled before an acknowledgement: it may still be applied.</exception>
    /// <exception cref="SessionExpiredException">The cluster evicted this session; the client has started a new one, and this write's outcome is unknown.</exception>
    public async Task<ClusterWriteResult> WriteAsync(string tree, IReadOnlyList<ClusterOperation> operations, CancellationToken cancellationToken = default)
    {
        await oneWriteAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var command = new ClusterCommand(new OperationId(session, ++sequence), tree, operations);
            try
            {
                var result = await RetryAsync((node, token) => node.WriteAsync(command, token), cancellationToken).ConfigureAwait(false);
                Volatile.Write(ref lastWriteIndex, long.Max(lastWriteIndex, result.LogIndex));
                return result;
            }
            catch (OperationCanceledException e) when (cancellationToken.IsCancellationRequested)
            {
                throw new WriteOutcomeUnknownException(command.Id, "the caller gave up before an acknowledgement", e);
            }
            catch (SessionExpiredException)
            {
                (session, sequence) = (Guid.NewGuid(), 0);
                throw;
            }
        }
        finally
        {
            oneWriteAtATime.Release();
        }
    }

    /// <summary>A linearizable read, from whichever node can serve one.</summary>
    public Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default)
        => RetryAsync((node, token) => node.ReadAsync(tree, key, token), cancellationToken);

    /// <summary>
    /// A bounded-stale read from <paramref name="node"/>: it reflects at least this session's last acknowledged write
    /// (<see cref="LastWriteIndex"/>), and whatever else that node has applied.
    /// </summary>
    public Task<byte[]?> ReadAppliedAsync(int node, string tree, byte[] key, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(node);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(node, nodes.Count);
        return nodes[node].ReadAppliedAsync(tree, key, LastWriteIndex, cancellationToken);
    }

    /// <inheritdoc/>
    public void Dispose() => oneWriteAtATime.Dispose();

    /// <summary>Tries nodes until one answers, following leader hints, pausing between rounds; every failure here is retryable.</summary>
    private async Task<T> RetryAsync<T>(Func<IClusterNodeConnection, CancellationToken, Task<T>> call, CancellationToken cancellationToken)
    {
        var backoff = options.InitialBackoff;
        var next = Volatile.Read(ref preferred);
        while (true)
        {
            for (var tried = 0; tried < nodes.Count; tried++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var index = next;
                using var attempt = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
                attempt.CancelAfter(options.AttemptTimeout);
                try
                {
                    var result = await call(nodes[index], attempt.Token).ConfigureAwait(false);
                    Volatile.Write(ref preferred, index);
                    return result;
                }
                catch (NotClusterLeaderException e) when (e.Leader is { } leader && IndexOf(leader) is { } hinted && hinted != index)
                {
                    next = hinted;
                    continue;
                }
                catch (Exception e) when (IsRetryable(e, cancellationToken))
                {
                }

                next = (index + 1) % nodes.Count;
            }

            await Task.Delay(backoff, cancellationToken).ConfigureAwait(false);
            backoff = TimeSpan.FromTicks(long.Min(backoff.Ticks * 2, options.MaxBackoff.Ticks));
        }
    }

    private static bool IsRetryable(Exception e, CancellationToken caller) => e switch
    {
        NotClusterLeaderException or WriteOutcomeUnknownException or ClusterUnavailableException or ClusterNodeFailedException => true,
        // The attempt's own timeout, not the caller's cancellation.
        OperationCanceledException => !caller.IsCancellationRequested,
        // A node stopping or stopped under the call, or a remote connection lost.
        ObjectDisposedException or IOException or System.Net.Sockets.SocketException => true,
        _ => false,
    };

    private int? IndexOf(System.Net.EndPoint leader)
    {
        for (var i = 0; i < nodes.Count; i++)
        {
            if (nodes[i].LocalEndPoint.Equals(leader))
                return i;
        }

        return null;
    }
}
