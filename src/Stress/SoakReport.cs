using System.Globalization;
using System.Text;

namespace Cairn.Stress;

/// <summary>What a <see cref="SoakCampaign"/> did and found.</summary>
/// <param name="Samples">The child's measurements, one per <see cref="StressOptions.SampleInterval"/>.</param>
/// <param name="ResidentGrowth">The verdict on the resident set (see <see cref="GrowthVerdict"/>).</param>
/// <param name="Failure">What went wrong first, or null.</param>
public sealed record SoakReport(
    long Seed,
    TimeSpan Elapsed,
    long Acknowledged,
    TimeSpan WritingTime,
    IReadOnlyList<SoakSample> Samples,
    GrowthVerdict ResidentGrowth,
    DurabilityFindings Findings,
    FileSystemReport FileSystem,
    string? Failure)
{
    public double AcknowledgedPerSecond => WritingTime > TimeSpan.Zero ? Acknowledged / WritingTime.TotalSeconds : 0;

    public bool Succeeded => Failure is null && Findings.IsClean && !ResidentGrowth.Grew;

    public string Format()
    {
        var c = CultureInfo.InvariantCulture;
        var text = new StringBuilder();
        text.AppendLine(c, $"soak run {(Succeeded ? "passed" : "FAILED")}: seed {Seed}, {Elapsed.TotalSeconds:F1} s");
        text.AppendLine(c, $"  acknowledged: {Acknowledged:N0} transactions, {AcknowledgedPerSecond:N0}/s");
        text.AppendLine(c, $"  resident set: {ResidentGrowth.Format()}");
        if (Samples.Count > 0)
        {
            text.AppendLine(c, $"  peaks over {Samples.Count} samples: managed heap {Units.MiB(Samples.Max(s => s.ManagedHeapBytes))}, scratch {Units.MiB(Samples.Max(s => s.ScratchBytes))}, " +
                $"merger queue {Samples.Max(s => s.MergerQueueLength):N0}, journals {Units.MiB(Samples.Max(s => s.JournalBytes))}");
        }
        text.AppendLine(c, $"  {Findings.Format()}");
        text.AppendLine(c, $"  file system: {FileSystem.Format()}");
        if (Failure is not null)
            text.AppendLine(c, $"  failure: {Failure}");
        return text.ToString();
    }
}
