namespace Cairn.Cluster;

/// <summary>How a <see cref="ClusterClient"/> retries.</summary>
public sealed class ClusterClientOptions
{
    /// <summary>How long one attempt on one node may take before the client tries again (same operation id).</summary>
    public TimeSpan AttemptTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>The pause after a round in which no node took the request (no leader yet), doubled up to <see cref="MaxBackoff"/>.</summary>
    public TimeSpan InitialBackoff { get; init; } = TimeSpan.FromMilliseconds(20);

    /// <summary>The longest pause between rounds.</summary>
    public TimeSpan MaxBackoff { get; init; } = TimeSpan.FromMilliseconds(500);

    /// <summary>Throws when a value is out of range.</summary>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(AttemptTimeout, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(InitialBackoff, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxBackoff, InitialBackoff);
    }
}
