using Cairn.Stress.Campaigns;

namespace Cairn.Stress;

/// <summary>
/// A crash campaign in the style of RocksDB's db_crashtest.py: a child process runs the stress workload and
/// acknowledges every durable transaction; the campaign kills it with SIGKILL (at random moments, and at named
/// points inside the engine), reopens the environments, checks that every acknowledged transaction is wholly there
/// and none is half there, that <see cref="StorageEnvironment.Verify"/> passes and that the recovered environments
/// work, and goes again, for <see cref="StressOptions.Duration"/> or <see cref="StressOptions.Kills"/>. A last
/// child is stopped cleanly, after which every transaction it committed is owed exactly. The campaign stops at the
/// first violation; cancelling ends it after the cycle under way (and that closing run).
/// </summary>
public sealed class StressCampaign(StressOptions options)
{
    public async Task<StressReport> RunAsync(CancellationToken cancellationToken = default)
    {
        var session = new CampaignSession(options);
        options.Progress?.WriteLine($"stress campaign: seed {session.Seed}, {options.Environments} environment(s) in {options.Directory}");
        await session.RunAsync(ProgressPrinter.KillLine, async () =>
        {
            int cycle = 1;
            for (; !Done(session.Tally, cancellationToken); cycle++)
                await session.Runner.KillAsync(session.Planner.Next(cycle));
            await session.Runner.StopAsync(session.Planner.Final(cycle), child => child.Transcript.WhenAcknowledged(CycleRunner.ClosingAcknowledgements),
                $"{CycleRunner.ClosingAcknowledgements} acknowledgements");
        });

        var f = session.Tally.Snapshot();
        return new StressReport(session.Seed, f.Elapsed, f.Kills, f.KillsAtPoints, f.Acknowledged, f.Writing, f.Checking, f.Launches, f.ChildOpenings,
            f.Recoveries, f.EnvironmentChecks, f.CommittedAfterRecovery, f.Findings, session.Probe.Report, f.Failure) { DuplicateIdsRefused = f.ImpostorsRefused };
    }

    private bool Done(CampaignTally tally, CancellationToken cancellationToken)
        => cancellationToken.IsCancellationRequested || tally.Elapsed >= options.EffectiveDuration || (options.Kills is { } kills && tally.Kills >= kills);
}
