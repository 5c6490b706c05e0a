namespace Cairn.Stress;

/// <summary>What a <see cref="RestartGrowCampaign"/> did and found: rounds passed, how large the environment grew, and the crash figures.</summary>
/// <param name="Rounds">Rounds that passed (kill, recovering restart with a clean stop, the parent's check).</param>
/// <param name="DataFileBytes">The largest size the environment's data file reached.</param>
/// <param name="Stress">Kills, acknowledgements, findings (lost, half-applied, Verify failures, environments that did not open) and timings.</param>
public sealed record RestartGrowReport(int Rounds, long DataFileBytes, StressReport Stress)
{
    public bool Succeeded => Stress.Succeeded;

    public string Format() => string.Create(System.Globalization.CultureInfo.InvariantCulture,
        $"restart-and-grow: {Rounds} round(s) passed, data file grew to {DataFileBytes / 1e9:F2} GB{Environment.NewLine}") + Stress.Format();
}
