using System.Globalization;
using System.Text;

namespace Cairn.Stress;

/// <summary>What a <see cref="StressCampaign"/> did and found.</summary>
/// <param name="Seed">Replays the workload and the campaign's choices (<see cref="StressOptions.Seed"/>).</param>
/// <param name="Kills">Children killed with SIGKILL (by the parent, or by themselves at a kill point).</param>
/// <param name="KillsAtPoints">Of those, the ones that died at a named kill point, by point.</param>
/// <param name="Acknowledged">Transactions the children acknowledged (every one was then found, or counted as lost).</param>
/// <param name="WritingTime">Summed time from a child's environments opening to its death or exit.</param>
/// <param name="CheckingTime">Summed time the parent spent reopening, comparing, working on and closing environments.</param>
/// <param name="ChildLaunch">From starting a child process to its first line (the runtime starting up).</param>
/// <param name="ChildOpening">A child opening its environments (recovering them when the previous child's crash was left to it).</param>
/// <param name="Recovery">Time to reopen an environment after a kill (what the parent's <see cref="StorageEnvironment.Open"/> took, recovery included).</param>
/// <param name="EnvironmentChecks">Environments reopened and compared key by key with the expected state.</param>
/// <param name="CommittedAfterRecovery">Transactions the parent committed into recovered environments.</param>
/// <param name="Failure">The first violation (the campaign stops there), with the cycle and the seed; null if none.</param>
public sealed record StressReport(
    long Seed,
    TimeSpan Elapsed,
    int Kills,
    IReadOnlyDictionary<string, int> KillsAtPoints,
    long Acknowledged,
    TimeSpan WritingTime,
    TimeSpan CheckingTime,
    DurationSummary ChildLaunch,
    DurationSummary ChildOpening,
    DurationSummary Recovery,
    int EnvironmentChecks,
    long CommittedAfterRecovery,
    DurabilityFindings Findings,
    FileSystemReport FileSystem,
    string? Failure)
{
    /// <summary>Acknowledged transactions per second while a child was writing.</summary>
    public double AcknowledgedPerSecond => WritingTime > TimeSpan.Zero ? Acknowledged / WritingTime.TotalSeconds : 0;

    /// <summary>
    /// In a journal group's campaign: copies of members (the root's folder copied, a branch backed up) that tried to join
    /// the group while it committed and were refused as duplicate ids with their files unchanged. Any other outcome is a failure.
    /// </summary>
    public int DuplicateIdsRefused { get; init; }

    public bool Succeeded => Failure is null && Findings.IsClean;

    public string Format()
    {
        var c = CultureInfo.InvariantCulture;
        var text = new StringBuilder();
        text.AppendLine(c, $"stress campaign {(Succeeded ? "passed" : "FAILED")}: seed {Seed}, {Elapsed.TotalSeconds:F1} s");
        int atPoints = KillsAtPoints.Values.Sum();
        string points = atPoints > 0
            ? ": " + string.Join(", ", KillsAtPoints.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => string.Create(c, $"{p.Key} {p.Value}")))
            : "";
        text.AppendLine(c, $"  kills: {Kills:N0} ({atPoints:N0} at named points{points})");
        text.AppendLine(c, $"  acknowledged: {Acknowledged:N0} transactions, {AcknowledgedPerSecond:N0}/s while a child was writing ({WritingTime.TotalSeconds:F1} s)");
        text.AppendLine(c, $"  {Findings.Format()}");
        if (DuplicateIdsRefused > 0)
            text.AppendLine(c, $"  journal group: {DuplicateIdsRefused:N0} copies of members (the root's folder, branch backups) refused as duplicate ids while the group committed, their files unchanged");
        text.AppendLine(c, $"  recovery (reopen after a kill): {Recovery.Format()}");
        text.AppendLine(c, $"  checks: {EnvironmentChecks:N0} environments compared with the expected state, {CommittedAfterRecovery:N0} transactions committed after recovery");
        text.AppendLine(c, $"  time: {WritingTime.TotalSeconds:F1} s children writing, {CheckingTime.TotalSeconds:F1} s checking, the rest starting children; " +
            $"a child's launch {ChildLaunch.Format()}, its opening {ChildOpening.Format()}");
        text.AppendLine(c, $"  file system: {FileSystem.Format()}");
        if (Failure is not null)
            text.AppendLine(c, $"  failure: {Failure}");
        return text.ToString();
    }
}
