using Cairn.Stress.Campaigns;

namespace Cairn.Stress;

/// <summary>
/// A soak run: no kills. One child runs exactly <see cref="StressOptions.Writers"/> writers,
/// <see cref="StressOptions.Callers"/> merger callers and <see cref="StressOptions.Readers"/> readers per environment
/// for <see cref="StressOptions.Duration"/> (a minute if unset), measuring its resident set, managed heap, scratch
/// memory, merger queue and journal bytes every <see cref="StressOptions.SampleInterval"/>; then it is stopped
/// cleanly and every environment checked as after a kill. It fails on any violation, and if the resident set
/// grows without bound (<see cref="GrowthVerdict"/>).
/// </summary>
public sealed class SoakCampaign(StressOptions options)
{
    public async Task<SoakReport> RunAsync(CancellationToken cancellationToken = default)
    {
        options.Validate();
        long seed = options.Seed ?? Random.Shared.NextInt64(1, 1_000_000_000);
        var duration = options.Duration ?? StressOptions.DefaultDuration;
        options.Progress?.WriteLine($"soak run: seed {seed}, {options.Environments} environment(s) in {options.Directory}, {duration.TotalSeconds:F0} s");
        var tally = new CampaignTally();
        var probe = new ProbeCapture();
        var judge = new CampaignJudge(options.Directory, seed, options.Workload, options.Branches, options.CommitsAfterRecovery, tally, probe);
        var plan = new CyclePlanner(options, seed).Soak();
        var runner = new CycleRunner(options, tally, judge);

        using (ProgressPrinter.Start(options.Progress, options.ProgressInterval, () => ProgressPrinter.SoakLine(tally.Snapshot())))
        {
            try
            {
                judge.Prepare();
                // Ends early if the child dies, which the judge then reports; a cancelled run stops now, cleanly.
                await runner.StopAsync(plan, child => Task.WhenAny(child.Ended, Task.Delay(duration, cancellationToken)),
                    $"{duration.TotalSeconds:F0} s of writing", duration);
            }
            catch (CampaignFailure failure)
            {
                tally.Fail($"{plan}: {failure.Message}{Environment.NewLine}replay with seed {seed}");
            }
        }

        var f = tally.Snapshot();
        var samples = runner.LastRun?.Samples ?? [];
        var growth = GrowthVerdict.Judge([.. samples.Select(s => s.ResidentBytes)], options.SoakGrowthRatio, Slack(plan));
        return new SoakReport(seed, f.Elapsed, f.Acknowledged, f.Writing, samples, growth, f.Findings, probe.Report, f.Failure);
    }

    /// <summary>Scratch memory may legitimately swing up to the flush threshold in every environment between two flushes.</summary>
    private long Slack(Campaigns.CyclePlan plan)
        => options.SoakGrowthSlackBytes + options.Environments * (plan.Child.Storage.FlushThresholdBytes ?? new StorageOptions(options.Directory).FlushThresholdBytes);
}
