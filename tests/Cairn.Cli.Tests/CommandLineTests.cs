using Cairn.Cli.Tests.Support;

namespace Cairn.Cli.Tests;

/// <summary>What every command shares: help, usage errors (exit code 2), and what it refuses to open (exit code 3).</summary>
public class CommandLineTests
{
    [Theory]
    [InlineData]
    [InlineData("info")]
    [InlineData("verify")]
    [InlineData("dump")]
    [InlineData("iostats")]
    [InlineData("backup")]
    [InlineData("restore")]
    [InlineData("compact")]
    public void Every_command_has_help_with_the_exit_codes(params string[] command)
    {
        var result = CliRun.Run([.. command, "--help"]);
        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("Usage:", result.Output);
        Assert.Contains("Exit codes: 0 success; 1 damage", result.Output);
        Assert.Contains("Opening:", result.Output);
        Assert.Empty(result.Error);
    }

    [Theory]
    [InlineData]
    [InlineData("frobnicate")]
    [InlineData("info")]
    [InlineData("info", "a", "b")]
    [InlineData("info", "--jsn", "x")]
    [InlineData("dump", "x")]
    [InlineData("dump", "x", "--tree", "t", "--format", "xml")]
    [InlineData("dump", "x", "--tree", "t", "--prefix", "a", "--prefix-hex", "61")]
    [InlineData("dump", "x", "--tree", "t", "--prefix-hex", "6z")]
    [InlineData("dump", "x", "--tree", "t", "--limit", "-1")]
    [InlineData("iostats", "x", "--slowest", "many")]
    public void A_wrong_command_line_is_a_usage_error(params string[] args)
    {
        var result = CliRun.Run(args);
        Assert.True(result.ExitCode == 2, result.ToString());
        Assert.Contains("cairn: ", result.Error);
        Assert.Contains("for usage", result.Error);
        Assert.Empty(result.Output);
    }

    [Theory]
    [InlineData("info")]
    [InlineData("verify")]
    [InlineData("dump")]
    [InlineData("iostats")]
    public void A_missing_directory_or_one_that_is_no_environment_is_an_open_failure_and_stays_as_it_was(string command)
    {
        using var dir = new Cairn.Tests.Support.TestDirectory("cli-not-env");
        string missing = dir.File("missing"), empty = dir.File("empty");
        Directory.CreateDirectory(empty);
        string[] extra = command == "dump" ? ["--tree", "t"] : [];

        var onMissing = CliRun.Run([command, missing, .. extra]);
        Assert.True(onMissing.ExitCode == 3, onMissing.ToString());
        Assert.Contains(missing, onMissing.Error);
        Assert.False(Path.Exists(missing));

        var onEmpty = CliRun.Run([command, empty, .. extra]);
        Assert.True(onEmpty.ExitCode == 3, onEmpty.ToString());
        Assert.Contains("not a Cairn environment", onEmpty.Error);
        Assert.Empty(Directory.EnumerateFileSystemEntries(empty));
    }

    [Theory]
    [InlineData("info")]
    [InlineData("verify")]
    [InlineData("dump")]
    public void An_environment_another_instance_has_open_is_an_open_failure(string command)
    {
        using var sample = new SampleEnvironment($"cli-locked-{command}");
        using var env = StorageEnvironment.Open(new StorageOptions(sample.Path) { LockWaitTimeout = TimeSpan.Zero });
        string[] extra = command == "dump" ? ["--tree", "users"] : [];

        var result = CliRun.Run([command, sample.Path, .. extra]);

        Assert.True(result.ExitCode == 3, result.ToString());
        Assert.Contains($"cairn {command}: The environment in '{sample.Path}' is already open in another process or instance. " +
                        "The tools open an environment read-only and only while no other process has it open", result.Error);
        Assert.Empty(result.Output);
    }
}
