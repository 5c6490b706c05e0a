namespace Cairn.Stress.Campaigns;

/// <summary>
/// What every campaign needs around its cycles: the seed, the tally, the probe, the judge, the planner and the
/// runner, and one way to run: take over the directory, print progress, stop at the first failure and record
/// it with the cycle it happened in and the seed that replays it.
/// </summary>
internal sealed class CampaignSession
{
    public CampaignSession(StressOptions options)
    {
        options.Validate();
        Options = options;
        Seed = options.Seed ?? Random.Shared.NextInt64(1, 1_000_000_000);
        Judge = new CampaignJudge(options.Directory, Seed, options.Workload, options.Branches, options.CommitsAfterRecovery, Tally, Probe);
        Planner = new CyclePlanner(options, Seed);
        Runner = new CycleRunner(options, Tally, Judge);
    }

    public StressOptions Options { get; }

    public long Seed { get; }

    public CampaignTally Tally { get; } = new();

    public ProbeCapture Probe { get; } = new();

    public CampaignJudge Judge { get; }

    public CyclePlanner Planner { get; }

    public CycleRunner Runner { get; }

    public async Task RunAsync(Func<CampaignFigures, string> progressLine, Func<Task> cycles)
    {
        using (ProgressPrinter.Start(Options.Progress, Options.ProgressInterval, () => progressLine(Tally.Snapshot())))
        {
            try
            {
                Judge.Prepare();
                await cycles();
            }
            catch (CampaignFailure failure)
            {
                Tally.Fail($"{Runner.Current?.ToString() ?? "taking over the directory"}: {failure.Message}{Environment.NewLine}replay with seed {Seed}");
            }
        }
    }
}
