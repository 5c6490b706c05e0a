namespace Cairn.Cli;

/// <summary>A command stops with this exit code and message (on standard error), without a stack trace: the user's mistake or the disk's, not the tool's.</summary>
internal sealed class CliFailure(int exitCode, string message) : Exception(message)
{
    public int ExitCode { get; } = exitCode;
}
