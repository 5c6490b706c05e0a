using Cairn.Stress.Campaigns;
using Cairn.Stress.Protocol;

namespace Cairn.Stress;

/// <summary>
/// Kill-and-restart rounds on one growing environment (issue 30, item 1). Each round: a child writes (engine defaults
/// unless <see cref="StressOptions.Storage"/> says otherwise) and is killed with SIGKILL a few seconds after it started;
/// a second child opens the environment (recovering what the first left), commits for a while and is stopped cleanly;
/// then the parent opens it, checks that every acknowledged transaction is there and none half there, runs
/// <see cref="StorageEnvironment.Verify"/> and closes it. The environment is never reset, so it grows with the
/// workload's live data (<see cref="WorkloadShape.RestartGrow"/>: gigabytes). An environment that fails to open (in
/// the restarted child or in the parent), a Verify failure, a lost or a half-applied transaction ends the campaign.
/// </summary>
public sealed class RestartGrowCampaign(StressOptions options, RestartGrowOptions rounds)
{
    public async Task<RestartGrowReport> RunAsync(CancellationToken cancellationToken = default)
    {
        rounds.Validate();
        var session = new CampaignSession(options with { Branches = 0 });
        var random = new Random(unchecked((int)session.Seed));
        int completed = 0;
        long largestDataFile = 0;
        options.Progress?.WriteLine($"restart-and-grow campaign: seed {session.Seed} in {options.Directory}");
        await session.RunAsync(ProgressPrinter.KillLine, async () =>
        {
            for (int round = 1; !Done(session.Tally, round, cancellationToken); round++)
            {
                var killAfter = rounds.KillAfterMin + (rounds.KillAfterMax - rounds.KillAfterMin) * random.NextDouble();
                var (killed, restarted) = session.Planner.RestartGrowRound(round, killAfter);
                await session.Runner.KillAsync(killed);
                // It writes for RunFor, and at least one transaction whatever the machine's load: every round commits after recovery.
                await session.Runner.StopAsync(restarted,
                    child => Task.WhenAny(child.Ended, Task.WhenAll(Task.Delay(rounds.RunFor, CancellationToken.None), child.Transcript.WhenAcknowledged(1))),
                    $"{rounds.RunFor.TotalSeconds:F1} s of writing and an acknowledgement", rounds.RunFor);
                completed = round;
                largestDataFile = Math.Max(largestDataFile, DataFileBytes());
                options.Progress?.WriteLine($"round {round} passed: data file {largestDataFile >> 20} MiB");
            }
        });

        var f = session.Tally.Snapshot();
        var stress = new StressReport(session.Seed, f.Elapsed, f.Kills, f.KillsAtPoints, f.Acknowledged, f.Writing, f.Checking, f.Launches,
            f.ChildOpenings, f.Recoveries, f.EnvironmentChecks, f.CommittedAfterRecovery, f.Findings, session.Probe.Report, f.Failure);
        return new RestartGrowReport(completed, Math.Max(largestDataFile, DataFileBytes()), stress);
    }

    private long DataFileBytes()
    {
        var file = new FileInfo(Path.Combine(EnvironmentLayout.Directory(options.Directory, 0, 0), StorageEnvironment.DataFileName));
        return file.Exists ? file.Length : 0;
    }

    private bool Done(CampaignTally tally, int round, CancellationToken cancellationToken)
        => cancellationToken.IsCancellationRequested
           || (rounds.Rounds is { } limit ? round > limit : tally.Elapsed >= options.EffectiveDuration);
}
