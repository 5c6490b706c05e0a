namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>What a directed link does with the bytes one node sends another.</summary>
public enum LinkMode
{
    /// <summary>Bytes go through as they come.</summary>
    Pass,

    /// <summary>
    /// The link's packets are lost while the connection stays open: a silent partition. Nothing arrives; as TCP
    /// sends what was not acknowledged again, the bytes (and an end of stream) are held and arrive in order once
    /// the link stops dropping, unless their connection was closed or cut meanwhile. The sender's first writes
    /// succeed (into its socket buffers) and later ones block.
    /// </summary>
    Drop,

    /// <summary>
    /// Every connection carrying this direction is cut with a reset, and new ones are reset as soon as they are
    /// accepted. A TCP connection cannot lose one direction only, so this cuts every connection between the two
    /// nodes, whichever of them dialled.
    /// </summary>
    Reset,

    /// <summary>Bytes go through in order, each chunk held for <see cref="LinkBehaviour.Delay"/> after it was read.</summary>
    Delay,
}

/// <summary>A directed link's mode, and its added latency when the mode is <see cref="LinkMode.Delay"/>.</summary>
public readonly record struct LinkBehaviour(LinkMode Mode, TimeSpan Delay)
{
    public static LinkBehaviour Pass { get; } = new(LinkMode.Pass, TimeSpan.Zero);

    public static LinkBehaviour Drop { get; } = new(LinkMode.Drop, TimeSpan.Zero);

    public static LinkBehaviour Reset { get; } = new(LinkMode.Reset, TimeSpan.Zero);

    public static LinkBehaviour Delayed(TimeSpan delay)
        => delay > TimeSpan.Zero
            ? new(LinkMode.Delay, delay)
            : throw new ArgumentOutOfRangeException(nameof(delay), delay, "A delay must be positive.");

    public override string ToString() => Mode == LinkMode.Delay ? $"Delay({Delay.TotalMilliseconds} ms)" : Mode.ToString();
}
