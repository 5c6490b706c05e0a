namespace Cairn.Cli.Tests.Support;

/// <summary>What one run of the tool printed and returned.</summary>
public sealed record CliResult(int ExitCode, string Output, string Error)
{
    public override string ToString() => $"exit code {ExitCode}\n--- stdout\n{Output}\n--- stderr\n{Error}";
}

/// <summary>Runs the cairn command in this process, over string writers, as a shell would run it.</summary>
public static class CliRun
{
    /// <param name="showProgressAtOnce">Progress from the start instead of after a second, so a test can see it whatever the timing.</param>
    public static CliResult Run(string[] args, bool showProgressAtOnce = false)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        var context = new CliContext(output, error, errorIsTerminal: false,
            showProgressAtOnce ? TimeSpan.Zero : CliContext.DefaultProgressDelay);
        int exitCode = CairnCli.Run(args, context);
        return new CliResult(exitCode, output.ToString(), error.ToString());
    }

    public static CliResult Run(params string[] args) => Run(args, showProgressAtOnce: false);
}
