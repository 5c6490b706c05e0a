using System.Text.RegularExpressions;
using Cairn.Cli.Tests.Support;
using Cairn.Reports;

namespace Cairn.Cli.Tests;

public partial class IoStatsCommandTests
{
    [Fact]
    public void Summarizes_a_saved_dump_and_draws_it()
    {
        using var sample = new SampleEnvironment("cli-iostats");
        string dump = sample.SaveStats();
        string page = sample.Scratch("io-stats.html");
        int operations = sample.Stats.Snapshot().Length;

        var result = CliRun.Run("iostats", dump, "--html", page, "--slowest", "3");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Equal(sample.Stats.FormatSummary(3), result.Output);
        Assert.Contains("journalWrite", result.Output);
        Assert.Contains($"wrote {page} ({operations} operations drawn)", result.Error);
        string html = File.ReadAllText(page);
        Assert.Equal(operations, Bars().Matches(html).Count);
        Assert.Contains(Path.GetFullPath(dump), html);
    }

    [Fact]
    public void Prints_a_dump_back_as_the_same_json()
    {
        using var sample = new SampleEnvironment("cli-iostats-json");
        string dump = sample.SaveStats();

        var result = CliRun.Run("iostats", dump, "--json");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Equal(File.ReadAllText(dump), result.Output.TrimEnd());
    }

    [Fact]
    public void Shows_an_environments_own_statistics()
    {
        using var sample = new SampleEnvironment("cli-iostats-env");

        var result = CliRun.Run("iostats", sample.Path);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.StartsWith("I/O statistics: the last 0 of 0 operations recorded", result.Output);
    }

    [Fact]
    public void A_file_that_is_no_dump_is_an_open_failure()
    {
        using var sample = new SampleEnvironment("cli-iostats-bad");
        string notADump = sample.Scratch("notes.json");
        File.WriteAllText(notADump, "{\"hello\":1}");

        var result = CliRun.Run("iostats", notADump);

        Assert.True(result.ExitCode == 3, result.ToString());
        Assert.Contains("not an I/O statistics document", result.Error);
        Assert.True(CliRun.Run("iostats", sample.Scratch("missing.json")).ExitCode == 3);
    }

    [GeneratedRegex("<rect class=\"op ")]
    private static partial Regex Bars();
}
