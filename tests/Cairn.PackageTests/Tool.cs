using System.Diagnostics;
using System.Text;

namespace Cairn.PackageTests;

/// <summary>Runs a command line tool (dotnet, git) to completion and returns what it printed, or throws with it.</summary>
internal static class Tool
{
    public sealed record Result(int ExitCode, string Output);

    /// <param name="environment">Variables to set; a null value removes the variable.</param>
    public static Result Run(string fileName, IEnumerable<string> arguments, string workingDirectory, TimeSpan timeout,
        IReadOnlyDictionary<string, string?>? environment = null, bool check = true)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
            start.ArgumentList.Add(argument);
        // This process runs under 'dotnet test', which leaves MSBuild's own variables in the environment; a
        // build started from here must find its SDK and MSBuild as a user's shell would, not inherit them.
        foreach (var name in start.Environment.Keys.ToArray())
        {
            if (name.StartsWith("MSBuild", StringComparison.OrdinalIgnoreCase) || name.StartsWith("VSTEST", StringComparison.OrdinalIgnoreCase))
                start.Environment.Remove(name);
        }
        // No build server or compiler server outlives the test.
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        start.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        if (environment is not null)
        {
            foreach (var (name, value) in environment)
            {
                if (value is null)
                    start.Environment.Remove(name);
                else
                    start.Environment[name] = value;
            }
        }

        var output = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) lock (output) output.AppendLine(e.Data); };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) lock (output) output.AppendLine(e.Data); };
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            process.WaitForExit();
            throw new TimeoutException($"'{Describe(fileName, arguments)}' did not finish within {timeout}:{Environment.NewLine}{Text(output)}");
        }
        process.WaitForExit(); // drains the asynchronous readers
        var result = new Result(process.ExitCode, Text(output));
        if (check && result.ExitCode != 0)
            throw new InvalidOperationException(
                $"'{Describe(fileName, arguments)}' in {workingDirectory} exited with {result.ExitCode}:{Environment.NewLine}{result.Output}");
        return result;
    }

    private static string Text(StringBuilder output)
    {
        lock (output)
            return output.ToString();
    }

    private static string Describe(string fileName, IEnumerable<string> arguments)
        => string.Join(' ', new[] { fileName }.Concat(arguments.Select(a => a.Contains(' ') ? $"\"{a}\"" : a)));
}
