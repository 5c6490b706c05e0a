using Cairn.Stress;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// A short restart-and-grow campaign (issue 30, item 1): on one environment, round after round, a child writing large
/// values (overflow runs), deleting earlier ones and dropping a tree of large values every 37th transaction is
/// SIGKILLed, a second child recovers, writes and closes cleanly, and the parent opens, compares with the expected
/// state, verifies and closes. Odd rounds run a BeginWrite writer, even ones 16 merger callers. Every round must pass:
/// the environment opens, nothing acknowledged is lost, nothing is half-applied, Verify finds nothing.
/// <c>cairn stress DIR --restart-grow</c> runs it at size (gigabytes, hundreds of rounds).
/// </summary>
/// <remarks><c>CAIRN_RESTART_GROW_ROUNDS</c> sets the rounds; <c>CAIRN_CRASH_SEED</c> replays a campaign's workload and choices.</remarks>
public class RestartGrowCampaignTests(ITestOutputHelper output)
{
    private const int DefaultRounds = 3;

    [Fact]
    public async Task An_environment_killed_restarted_and_checked_round_after_round_while_it_grows_always_opens_whole()
    {
        using var dir = new TestDirectory("restart-grow");
        int rounds = checked((int)Campaigns.Setting("CAIRN_RESTART_GROW_ROUNDS", DefaultRounds));
        var options = Campaigns.Options(dir.Path) with
        {
            // The campaign's shape, scaled down: values up to 256 KiB, 150 of them live.
            Workload = WorkloadShape.RestartGrow with { MaxLargeValueBytes = 256 * 1024, LogWindow = 150 },
            Storage = StorageProfile.Default,
            Writers = 1,
            Callers = 16,
            Readers = 1,
            CommitsAfterRecovery = 0,
        };
        var roundOptions = new RestartGrowOptions
        {
            Rounds = rounds,
            KillAfterMin = TimeSpan.FromMilliseconds(300),
            KillAfterMax = TimeSpan.FromMilliseconds(900),
            RunFor = TimeSpan.FromSeconds(1),
        };
        var report = await new RestartGrowCampaign(options, roundOptions).RunAsync();
        output.WriteLine(report.Format());
        Assert.True(report.Succeeded, report.Format() + $"replay with {Campaigns.SeedVariable}={report.Stress.Seed}");
        Assert.Equal(rounds, report.Rounds);
        Assert.Equal(rounds, report.Stress.Kills);
        Assert.True(report.Stress.Acknowledged > 0, "the children acknowledged nothing");
    }
}
