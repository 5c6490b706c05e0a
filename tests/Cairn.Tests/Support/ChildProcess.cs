using System.Diagnostics;

namespace Cairn.Tests.Support;

/// <summary>Starts the test child (tests/Cairn.TestChild) as a real process of its own.</summary>
public static class ChildProcess
{
    public static Process Start(params string[] arguments)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Cairn.TestChild.dll"));
        foreach (var argument in arguments)
            start.ArgumentList.Add(argument);
        return Process.Start(start) ?? throw new InvalidOperationException("could not start the test child");
    }

    /// <summary>Runs the child to completion (at most a minute) and returns its standard output.</summary>
    public static string Run(params string[] arguments)
    {
        using var process = Start(arguments);
        process.StandardInput.Close();
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        if (!process.WaitForExit(TimeSpan.FromMinutes(1)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"test child {string.Join(' ', arguments)} did not exit");
        }
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"test child exited with {process.ExitCode}: {error.Result}");
        return output;
    }
}
