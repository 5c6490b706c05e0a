using Cairn.Cli.Commands;
using Cairn.Cli.Tests.Support;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

/// <summary>
/// <c>cairn stress</c> end to end: a short campaign whose children are this tool again (killed with SIGKILL,
/// reopened, compared), a short soak run, and its usage errors. The harness itself is tested in Cairn.Tests.
/// </summary>
public class StressCommandTests
{
    [Fact]
    public void A_short_campaign_kills_its_children_and_finds_nothing_lost()
    {
        using var dir = new TestDirectory("cli-stress");

        var result = CliRun.Run("stress", dir.Path, "--kills", "4", "--seed", "17");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("stress campaign passed: seed 17", result.Output);
        Assert.Contains("kills: 4", result.Output);
        Assert.Contains("lost 0 · half-applied 0", result.Output);
        Assert.Contains("file system:", result.Output);
        Assert.Contains("stress campaign: seed 17", result.Error);
    }

    [Fact]
    public void A_soak_run_samples_memory_and_passes()
    {
        using var dir = new TestDirectory("cli-soak");

        var result = CliRun.Run("stress", dir.Path, "--soak", "--duration", "4s", "--callers", "2");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("soak run passed", result.Output);
        Assert.Contains("resident set:", result.Output);
    }

    [Theory]
    [InlineData("--duration", "soon")]
    [InlineData("--duration", "-5m")]
    [InlineData("--writers", "0", "--callers", "0")]
    [InlineData("--restart-grow", "--kill-after", "5s..2s")]
    [InlineData("--restart-grow", "--kill-after", "1s..2s..3s")]
    [InlineData("--restart-grow", "--run-for", "soon")]
    [InlineData("--restart-grow", "--rounds", "0")]
    [InlineData("--restart-grow", "--log-window", "0")]
    public void Bad_settings_are_usage_errors(params string[] settings)
    {
        using var dir = new TestDirectory("cli-stress-usage");

        var result = CliRun.Run(["stress", dir.Path, .. settings]);

        Assert.True(result.ExitCode == ExitCodes.Usage, result.ToString());
        Assert.Contains("cairn stress:", result.Error);
    }

    [Theory]
    [InlineData("90s", 90)]
    [InlineData("30m", 1800)]
    [InlineData("2h", 7200)]
    [InlineData("0.5m", 30)]
    [InlineData("00:01:30", 90)]
    public void Durations_take_units_or_a_time_span(string text, double seconds)
        => Assert.Equal(TimeSpan.FromSeconds(seconds), StressCommand.ParseDuration(text));
}
