using System.Globalization;
using Cairn.Stress;
using Xunit.Abstractions;

namespace Cairn.Tests.Support;

/// <summary>
/// The crash tests' stress campaigns (Cairn.Stress): the child started through Cairn.TestChild, sizes and seeds
/// from environment variables, the report in the test output and in the failure message.
/// </summary>
public static class Campaigns
{
    /// <summary><c>CAIRN_CRASH_SEED</c> replays a campaign's workload and choices (every report names its seed).</summary>
    public const string SeedVariable = "CAIRN_CRASH_SEED";

    /// <summary>An environment variable's number (a campaign's size or seed), or <paramref name="fallback"/> when it is not set.</summary>
    public static long Setting(string name, long fallback)
    {
        var text = System.Environment.GetEnvironmentVariable(name);
        return string.IsNullOrWhiteSpace(text) ? fallback : long.Parse(text, CultureInfo.InvariantCulture);
    }

    /// <summary>A campaign in <paramref name="directory"/> with the seed from <see cref="SeedVariable"/> (else a new one).</summary>
    public static StressOptions Options(string directory)
        => new(directory, ChildProcess.StressChild) { Seed = Setting(SeedVariable, Random.Shared.NextInt64(1, 1_000_000_000)) };

    /// <summary>
    /// Runs a kill campaign of <c>$killsVariable</c> (else <paramref name="defaultKills"/>) kills in a fresh directory,
    /// shaped by <paramref name="shape"/>; fails with its report (and how to replay it) unless it succeeded.
    /// </summary>
    public static async Task<StressReport> KillAsync(string name, string killsVariable, int defaultKills, Func<StressOptions, StressOptions> shape,
        ITestOutputHelper output)
    {
        using var dir = new TestDirectory(name);
        var options = shape(Options(dir.Path)) with { Kills = checked((int)Setting(killsVariable, defaultKills)) };
        var report = await new StressCampaign(options).RunAsync();
        output.WriteLine(report.Format());
        Assert.True(report.Succeeded, report.Format() + $"replay with {SeedVariable}={report.Seed} {killsVariable}={options.Kills}");
        return report;
    }

    /// <summary>Runs the soak campaign; fails with its report unless it succeeded.</summary>
    public static async Task<SoakReport> SoakAsync(StressOptions options, ITestOutputHelper output)
    {
        var report = await new SoakCampaign(options).RunAsync();
        output.WriteLine(report.Format());
        Assert.True(report.Succeeded, report.Format() + $"replay with {SeedVariable}={report.Seed}");
        return report;
    }
}
