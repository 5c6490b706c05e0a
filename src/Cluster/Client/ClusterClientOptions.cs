namespace Cairn.Cluster;

/// <summary>How a <see cref="ClusterClient"/> retries.</summary>
public sealed class ClusterClientOptions
{
    /// <summary>How long one attempt on one node may take before the client tries again (same operation id).</summary>
    public TimeSpan AttemptTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// The pause after a round in which no node took the request (no leader yet), doubled up to <see cref="MaxBackoff"/>.
    /// Within a round a node that refuses the connection or does not lead is passed at once (to the leader it names, else
    /// the next node).
    /// </summary>
    public TimeSpan InitialBackoff { get; init; } = TimeSpan.FromMilliseconds(10);

    /// <summary>
    /// The longest pause between rounds: by default 100 ms, shorter than the default election timeout
    /// (<see cref="ClusterNodeOptions.DefaultLowerElectionTimeout"/>), so a client waiting through a leader's crash
    /// reaches the new leader within about a tenth of a second of its election rather than a long backoff later; a
    /// round costs one small request per node.
    /// </summary>
    public TimeSpan MaxBackoff { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>Throws when a value is out of range.</summary>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(AttemptTimeout, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(InitialBackoff, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxBackoff, InitialBackoff);
    }
}
