using Cairn.Stress.Campaigns;

namespace Cairn.Stress;

/// <summary>
/// A crash campaign in the style of RocksDB's db_crashtest.py: a child process runs the stress workload and
/// acknowledges every durable transaction; the campaign kills it with SIGKILL (at random moments, and at named
/// points inside the engine), reopens the environments, checks that every acknowledged transaction is wholly there
/// and none is half there, that <see cref="StorageEnvironment.Verify"/> passes and that the recovered environments
/// work, and goes again, for <see cref="StressOptions.Duration"/> or <see cref="StressOptions.Kills"/>. A last
/// child is stopped cleanly, after which every transaction it committed is owed exactly.
/// </summary>
public sealed class StressCampaign(StressOptions options)
{
    public async Task<StressReport> RunAsync(CancellationToken cancellationToken = default)
    {
        options.Validate();
        long seed = options.Seed ?? Random.Shared.NextInt64(1, 1_000_000_000);
        options.Progress?.WriteLine($"stress campaign: seed {seed}, {options.Environments} environment(s) in {options.Directory}");
        var tally = new CampaignTally();
        var probe = new ProbeCapture();
        var judge = new CampaignJudge(options.Directory, seed, options.Workload, options.Branches, options.CommitsAfterRecovery, tally, probe);
        var planner = new CyclePlanner(options, seed);
        var runner = new CycleRunner(options, tally, judge);

        using (ProgressPrinter.Start(options.Progress, options.ProgressInterval, () => ProgressPrinter.KillLine(tally.Snapshot())))
        {
            CyclePlan? plan = null;
            try
            {
                judge.Prepare();
                int cycle = 1;
                for (; !Done(tally, cancellationToken); cycle++)
                {
                    plan = planner.Next(cycle);
                    await runner.KillAsync(plan);
                }
                plan = planner.Final(cycle);
                await runner.StopAsync(plan, child => child.Transcript.WhenAcknowledged(CycleRunner.ClosingAcknowledgements),
                    $"{CycleRunner.ClosingAcknowledgements} acknowledgements");
            }
            catch (CampaignFailure failure)
            {
                tally.Fail($"{plan?.ToString() ?? "opening the directory"}: {failure.Message}{Environment.NewLine}replay with seed {seed}");
            }
        }

        var f = tally.Snapshot();
        return new StressReport(seed, f.Elapsed, f.Kills, f.KillsAtPoints, f.Acknowledged, f.Writing, f.Checking, f.Launches, f.ChildOpenings, f.Recoveries, f.EnvironmentChecks,
            f.CommittedAfterRecovery, f.Findings, probe.Report, f.Failure);
    }

    private bool Done(CampaignTally tally, CancellationToken cancellationToken)
        => cancellationToken.IsCancellationRequested || tally.Elapsed >= options.EffectiveDuration || (options.Kills is { } kills && tally.Kills >= kills);
}
