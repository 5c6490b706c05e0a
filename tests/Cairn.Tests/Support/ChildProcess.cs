using System.Diagnostics;

namespace Cairn.Tests.Support;

/// <summary>Starts the test child (tests/Cairn.TestChild) as a real process of its own.</summary>
public static class ChildProcess
{
    public static Process Start(params string[] arguments)
        => Process.Start(StartInfo(arguments)) ?? throw new InvalidOperationException("could not start the test child");

    /// <summary>The child with <paramref name="arguments"/>, its standard streams redirected.</summary>
    public static ProcessStartInfo StartInfo(IEnumerable<string> arguments)
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
        return start;
    }

    /// <summary>How a stress campaign starts its child here: <c>Cairn.TestChild stress-child …</c>.</summary>
    public static ProcessStartInfo StressChild(IReadOnlyList<string> arguments) => StartInfo(["stress-child", .. arguments]);

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
