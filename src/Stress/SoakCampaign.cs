using Cairn.Stress.Campaigns;

namespace Cairn.Stress;

/// <summary>
/// A soak run: no kills. One child runs exactly <see cref="StressOptions.Writers"/> writers,
/// <see cref="StressOptions.Callers"/> merger callers and <see cref="StressOptions.Readers"/> readers per environment
/// for <see cref="StressOptions.Duration"/> (a minute if unset), measuring its resident set, managed heap, scratch
/// memory, merger queue and journal bytes every <see cref="StressOptions.SampleInterval"/>; then it is stopped
/// cleanly and every environment checked as after a kill. It fails on any violation, and if the resident set
/// grows without bound (<see cref="GrowthVerdict"/>). Cancelling stops the child at once, cleanly, and judges what ran.
/// </summary>
public sealed class SoakCampaign(StressOptions options)
{
    public async Task<SoakReport> RunAsync(CancellationToken cancellationToken = default)
    {
        var session = new CampaignSession(options);
        var duration = options.Duration ?? StressOptions.DefaultDuration;
        var plan = session.Planner.Soak();
        options.Progress?.WriteLine($"soak run: seed {session.Seed}, {options.Environments} environment(s) in {options.Directory}, {duration.TotalSeconds:F0} s");
        // The run ends early if the child dies, which the judge then reports.
        await session.RunAsync(ProgressPrinter.SoakLine, () => session.Runner.StopAsync(plan,
            child => Task.WhenAny(child.Ended, Task.Delay(duration, cancellationToken)), $"{duration.TotalSeconds:F0} s of writing", duration));

        var f = session.Tally.Snapshot();
        var samples = session.Runner.LastRun?.Samples ?? [];
        var growth = GrowthVerdict.Judge([.. samples.Select(s => s.ResidentBytes)], options.SoakGrowthRatio, Slack(plan));
        return new SoakReport(session.Seed, f.Elapsed, f.Acknowledged, f.Writing, samples, growth, f.Findings, session.Probe.Report, f.Failure);
    }

    /// <summary>Scratch memory may legitimately swing up to the flush threshold in every environment between two flushes.</summary>
    private long Slack(CyclePlan plan)
        => options.SoakGrowthSlackBytes + options.Environments * plan.Child.Storage.Engine.FlushThresholdBytes;
}
