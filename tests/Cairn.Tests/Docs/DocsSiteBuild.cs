using System.Diagnostics;
using System.Reflection;
using Cairn.Tests.Support;

namespace Cairn.Tests.Docs;

/// <summary>
/// The API reference and guide site, built once for the tests that check it: <c>scripts/docs.sh --no-build</c>
/// in this test run's configuration (the libraries it documents are built with the tests), into
/// artifacts/docs-site/site. The script fails on any docfx warning, so a broken cross-reference fails here.
/// </summary>
public sealed class DocsSiteBuild
{
    public DocsSiteBuild()
    {
        string configuration = typeof(DocsSiteBuild).Assembly.GetCustomAttribute<AssemblyConfigurationAttribute>()?.Configuration ?? "Release";
        var start = new ProcessStartInfo("bash") { WorkingDirectory = TestDirectory.RepositoryRoot };
        foreach (var argument in new[] { "scripts/docs.sh", "--no-build", "-c", configuration })
            start.ArgumentList.Add(argument);
        var outcome = ExternalProcess.Run(start, TimeSpan.FromMinutes(15));
        Assert.True(outcome.ExitCode == 0, $"scripts/docs.sh exited with {outcome.ExitCode}:\n{outcome.Output}\n{outcome.Error}");

        string output = Path.Combine(TestDirectory.RepositoryRoot, "artifacts", "docs-site");
        Site = Path.Combine(output, "site");
        AssemblyDirectory = Path.Combine(output, "obj", "assemblies");
        DocumentedAssemblies = File.ReadAllLines(Path.Combine(Site, "assemblies.txt")).Where(line => line.Length > 0).ToArray();
    }

    /// <summary>The built site's root folder (index.html).</summary>
    public string Site { get; }

    /// <summary>Where the script put the assemblies (and XML files) it documented.</summary>
    public string AssemblyDirectory { get; }

    /// <summary>The names of the assemblies the API reference covers.</summary>
    public IReadOnlyList<string> DocumentedAssemblies { get; }
}
