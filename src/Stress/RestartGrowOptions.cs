namespace Cairn.Stress;

/// <summary>
/// The rounds of a <see cref="RestartGrowCampaign"/>: how long a child writes before it is killed, how long the
/// child that recovers writes before it is stopped cleanly, and how many rounds.
/// </summary>
public sealed record RestartGrowOptions
{
    /// <summary>The killed child dies a random time in [<see cref="KillAfterMin"/>, <see cref="KillAfterMax"/>] after it said 'start'.</summary>
    public TimeSpan KillAfterMin { get; init; } = TimeSpan.FromSeconds(3.5);

    public TimeSpan KillAfterMax { get; init; } = TimeSpan.FromSeconds(4.9);

    /// <summary>How long the restarted child (which recovers the killed one's environment) commits before it is asked to stop.</summary>
    public TimeSpan RunFor { get; init; } = TimeSpan.FromSeconds(9);

    /// <summary>Stop after this many rounds (null: run for <see cref="StressOptions.Duration"/>).</summary>
    public int? Rounds { get; init; }

    /// <summary>Throws <see cref="ArgumentException"/> naming the first value out of range.</summary>
    public void Validate()
    {
        if (KillAfterMin <= TimeSpan.Zero || KillAfterMax < KillAfterMin)
            throw new ArgumentException("restart-and-grow options: KillAfterMin must be positive and KillAfterMax at least KillAfterMin", nameof(KillAfterMax));
        if (RunFor <= TimeSpan.Zero)
            throw new ArgumentException("restart-and-grow options: RunFor must be positive", nameof(RunFor));
        if (Rounds is < 1)
            throw new ArgumentException("restart-and-grow options: Rounds must be at least 1", nameof(Rounds));
    }
}
