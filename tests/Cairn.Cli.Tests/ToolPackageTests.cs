using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Cli.Tests.Support;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

/// <summary>
/// The tool as a user gets it: src/Cli packed (from the build this test run uses) into a local folder, installed
/// from there with <c>dotnet tool install --tool-path</c>, and run. Offline: the folder is the only package source
/// and the package cache is a fresh one of its own, so neither the registry nor an older package is involved.
/// </summary>
public class ToolPackageTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(5);

    [Fact]
    public void The_packed_tool_installs_from_a_local_folder_and_runs()
    {
        using var sample = new SampleEnvironment("cli-package-env");
        using var dir = new TestDirectory("cli-package");
        string feed = dir.File("feed"), tools = dir.File("tools"), packages = dir.File("packages"), config = dir.File("nuget.config");
        Directory.CreateDirectory(feed);
        File.WriteAllText(config, $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="local" value="{feed}" />
              </packageSources>
            </configuration>
            """);
        // A version of its own, so nothing installs a package packed by an earlier run.
        string version = $"0.0.0-test.{DateTime.UtcNow:yyyyMMddHHmmss}.{Environment.ProcessId}";
        string project = Path.Combine(TestDirectory.RepositoryRoot, "src", "Cli", "Cli.csproj");

        Run(dir.Path, packages, "dotnet", "pack", project, "-c", BuildConfiguration(), "--no-build", "-o", feed, $"-p:PackageVersion={version}");
        Assert.True(File.Exists(Path.Combine(feed, $"Cairn.Cli.{version}.nupkg")), $"no Cairn.Cli.{version}.nupkg in {feed}");
        Run(dir.Path, packages, "dotnet", "tool", "install", "Cairn.Cli", "--version", version, "--tool-path", tools, "--add-source", feed, "--configfile", config);

        string cairn = Path.Combine(tools, "cairn");
        var help = Run(dir.Path, packages, cairn, "--help");
        Assert.Contains("cairn: look at Cairn storage environments", help.Output);
        Assert.Contains("Exit codes:", help.Output);

        var info = Run(dir.Path, packages, cairn, "info", sample.Path);
        Assert.Contains($"environment {sample.Path}", info.Output);
        Assert.Contains(sample.EnvironmentId.ToString(), info.Output);
        Assert.Contains("trees (3)", info.Output);
    }

    /// <summary>The configuration this test was built in (bin/Release/... or bin/Debug/...): the tool is packed from the same build.</summary>
    private static string BuildConfiguration()
    {
        var parts = AppContext.BaseDirectory.Split(Path.DirectorySeparatorChar, StringSplitOptions.RemoveEmptyEntries);
        int bin = Array.LastIndexOf(parts, "bin");
        Assert.True(bin >= 0 && bin + 1 < parts.Length, $"the test does not run from a bin/ folder: {AppContext.BaseDirectory}");
        return parts[bin + 1];
    }

    private static ProcessOutcome Run(string workingDirectory, string packages, string fileName, params string[] arguments)
    {
        var start = new ProcessStartInfo(fileName) { WorkingDirectory = workingDirectory };
        foreach (var argument in arguments)
            start.ArgumentList.Add(argument);
        start.Environment["NUGET_PACKAGES"] = packages;
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        // The installed tool's launcher finds the runtime this test runs on.
        start.Environment["DOTNET_ROOT"] = DotnetRoot();
        // Left by the test host's own MSBuild, they would steer the nested dotnet to it.
        foreach (var inherited in new[] { "MSBuildSDKsPath", "MSBUILD_EXE_PATH", "MSBuildExtensionsPath", "MSBuildLoadMicrosoftTargetsReadOnly" })
            start.Environment.Remove(inherited);
        var outcome = ExternalProcess.Run(start, Timeout);
        Assert.True(outcome.ExitCode == 0, $"{fileName} {string.Join(' ', arguments)}: exit code {outcome.ExitCode}\n{outcome.Output}\n{outcome.Error}");
        return outcome;
    }

    /// <summary>The .NET installation running this test: the shared runtime lives at {root}/shared/Microsoft.NETCore.App/{version}/.</summary>
    private static string DotnetRoot()
        => Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
}
