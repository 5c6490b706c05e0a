using System.Diagnostics;
using Cairn.Stress;
using Cairn.Stress.Protocol;
using Cairn.Tests.Support;

namespace Cairn.Tests.Harness;

/// <summary>Whole campaigns whose outcome is known: a lying child, bad options; and the pieces of the report.</summary>
public class StressCampaignTests
{
    /// <summary>
    /// A child that acknowledges three transactions it never committed, in one write before it sleeps: whenever the
    /// kill lands, the parent has the lines, and the reopened environment holds none of them.
    /// </summary>
    [Fact]
    public async Task A_child_acknowledging_what_it_never_committed_fails_the_campaign_with_the_lost_transactions()
    {
        using var dir = new TestDirectory("campaign-liar");
        var options = new StressOptions(dir.Path, _ => new ProcessStartInfo("/bin/sh",
            ["-c", "printf 'opening\\nstart 0 0\\nack 0 1\\nack 0 2\\nack 0 3\\n'; exec sleep 60"]))
        {
            Seed = 5,
            Kills = 3,
            Writers = 1,
            Callers = 0,
            CheckFraction = 1,
        };
        var report = await new StressCampaign(options).RunAsync();

        Assert.False(report.Succeeded);
        Assert.Equal(3, report.Findings.Lost);
        Assert.Equal(1, report.Kills);
        Assert.Equal(3, report.Acknowledged);
        Assert.Contains("acknowledged transactions lost", report.Failure);
        Assert.Contains("replay with seed 5", report.Failure);
        Assert.Contains("lost 3", report.Format());
        Assert.Contains("FAILED", report.Format());
        Assert.True(report.FileSystem.Probed);
    }

    [Fact]
    public async Task A_child_that_cannot_start_is_a_child_failure()
    {
        using var dir = new TestDirectory("campaign-no-child");
        var report = await new StressCampaign(new StressOptions(dir.Path, _ => new ProcessStartInfo("/nonexistent/cairn-child")) { Kills = 1 }).RunAsync();
        Assert.False(report.Succeeded);
        Assert.Equal(1, report.Findings.ChildFailures);
        Assert.Contains("could not start the child", report.Failure);
    }

    [Fact]
    public void Options_out_of_range_are_refused_with_their_name()
    {
        var options = new StressOptions("/tmp/x", ChildProcess.StressChild);
        Assert.Contains("Writers", Assert.Throws<ArgumentException>((options with { Writers = 0, Callers = 0 }).Validate).Message);
        Assert.Contains("GroupWritesInFlight", Assert.Throws<ArgumentException>((options with { GroupWritesInFlight = 17 }).Validate).Message);
        Assert.Contains("MaxKeysPerTransaction", Assert.Throws<ArgumentException>((options with { Workload = new WorkloadShape { MaxKeysPerTransaction = -1 } }).Validate).Message);
        options.Validate();
    }

    [Fact]
    public void The_child_reads_back_the_arguments_the_parent_writes()
    {
        var settings = new ChildSettings("/some/dir", 99, WorkloadShape.LargeValues with { Trees = 3 }, 2, [1, 0, 2], [3, 1, 0], 2,
            StorageSettings.Flushing.WithEngine(o => o with { JournalGroupMaxInFlightWrites = 4, JournalCompressionThresholdBytes = 8192 }), KillPoint.JournalLinked, 3, 500);
        var read = ChildSettings.Parse(settings.ToArguments());
        Assert.Equal(settings.ToArguments(), read.ToArguments());
        Assert.Equal(settings.Shape, read.Shape);
        Assert.Equal(settings.Storage with { Label = "" }, read.Storage with { Label = "" });
        Assert.Throws<ArgumentException>(() => ChildSettings.Parse([.. settings.ToArguments(), "--typo", "1"]));
        Assert.Equal(StressChild.UsageExitCode, StressChild.Run(["--seed"], TextWriter.Null, TextReader.Null, TextWriter.Null));
    }

    [Fact]
    public void A_volatile_file_system_is_named_and_its_figures_disowned()
    {
        var tmpfs = new FileSystemReport(true, 0x01021994, true, 1L << 30, true);
        Assert.Equal("tmpfs", tmpfs.TypeName);
        Assert.Contains("mean nothing for durability", tmpfs.Format());
        Assert.DoesNotContain("mean nothing", (tmpfs with { FileSystemType = 0xEF53, Volatile = false }).Format());
    }

    [Fact]
    public void Memory_that_levels_off_passes_however_it_wobbles_and_memory_that_keeps_growing_fails()
    {
        const long MiB = 1 << 20;
        var random = new Random(1);
        // Bounded: anywhere between 100 and 184 MiB (1.2 × 100 + 64) each second, spikes in any third, any run length.
        for (int run = 0; run < 500; run++)
        {
            var bounded = Enumerable.Range(0, 6 + random.Next(100)).Select(_ => (100 + random.Next(85)) * MiB).ToArray();
            var wobble = GrowthVerdict.Judge(bounded, 1.2, 64 * MiB);
            Assert.False(wobble.Grew, wobble.Format());
        }
        // Growing by 2 MiB a second for 10 minutes from 150 MiB: the last third's peak is 1,350 MiB, the middle's 950.
        var leaking = Enumerable.Range(0, 600).Select(s => (150 + 2L * s) * MiB).ToArray();
        var verdict = GrowthVerdict.Judge(leaking, 1.2, 64 * MiB);
        Assert.True(verdict.Judged && verdict.Grew, verdict.Format());
        Assert.Contains("GREW", verdict.Format());
        // Too short to tell warm-up from growth: not judged, so it cannot fail.
        Assert.False(GrowthVerdict.Judge([1, 2, 400 * MiB], 1.5, 0).Judged);
    }

    [Fact]
    public void Recovery_percentiles_are_by_nearest_rank()
    {
        var summary = DurationSummary.Of(Enumerable.Range(1, 200).Select(ms => TimeSpan.FromMilliseconds(ms)));
        Assert.Equal((200, 100.0, 198.0, 200.0), (summary.Count, summary.P50.TotalMilliseconds, summary.P99.TotalMilliseconds, summary.Max.TotalMilliseconds));
        Assert.Equal("none", DurationSummary.Of([]).Format());
    }
}
