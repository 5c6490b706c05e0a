using System.Reflection;
using Cairn.Pal;
using NetArchTest.Rules;

namespace Cairn.Tests.Architecture;

/// <summary>
/// What the package 'Cairn' ships is the engine and its platform layer, nothing else: reports are rendered by
/// Cairn.Reports and faults are injected by Cairn.Pal.Testing, both outside it (docs/decisions.md, issue 26).
/// </summary>
public class ShippedAssemblyTests
{
    private static readonly Assembly s_engine = typeof(StorageEnvironment).Assembly;
    private static readonly Assembly s_pal = typeof(PalFile).Assembly;

    [Fact]
    public void The_engine_renders_no_report()
    {
        // JSON writing and reading, HTML encoding: what the text, JSON and HTML reports need and the engine does not.
        var result = Types.InAssembly(s_engine).ShouldNot()
            .HaveDependencyOnAny("System.Text.Json", "System.Net.WebUtility", "Cairn.Reports").GetResult();
        Assert.True(result.IsSuccessful, "the engine renders: " + string.Join(", ", result.FailingTypeNames ?? []));
        Assert.DoesNotContain(s_engine.GetExportedTypes(), t => t.Namespace == "Cairn.Reports");
    }

    [Fact]
    public void The_platform_layer_exports_no_fault_injector()
    {
        var testing = s_pal.GetTypes().Where(t => t.Namespace?.StartsWith("Cairn.Pal.Testing", StringComparison.Ordinal) == true);
        Assert.Empty(testing.Select(t => t.FullName));
        Assert.DoesNotContain(s_pal.GetExportedTypes(), t => t.Name.Contains("Fault", StringComparison.Ordinal));
    }
}
