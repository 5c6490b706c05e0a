using System.Diagnostics;

namespace Cairn.Tests.Support;

/// <summary>What a program a test ran printed and returned.</summary>
public sealed record ProcessOutcome(int ExitCode, string Output, string Error);

/// <summary>
/// Runs a program other than the engine's own test child (a browser, the dotnet CLI, an installed tool) to
/// completion: both output streams read while it runs, so a full pipe never stalls it, and killed with its
/// children if it outlives the timeout, which fails the test.
/// </summary>
public static class ExternalProcess
{
    public static ProcessOutcome Run(ProcessStartInfo start, TimeSpan timeout)
    {
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = true;
        string command = $"{start.FileName} {string.Join(' ', start.ArgumentList)}";
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{command} did not start");
        process.StandardInput.Close();
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEndAsync();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"{command} did not finish within {timeout.TotalSeconds:F0} s");
        }
        process.WaitForExit();
        return new ProcessOutcome(process.ExitCode, output.Result, error.Result);
    }
}
