using System.Reflection;
using Cairn.Stress;
using NetArchTest.Rules;

namespace Cairn.Tests.Architecture;

/// <summary>
/// The stress harness (Cairn.Stress) stands on the engine's public API only, as any host does, so what it proves
/// is what a host gets; and inside it the child's side and the campaign's side share only the workload, the
/// checks and the protocol.
/// </summary>
public class StressLayerTests
{
    private static readonly Assembly s_stress = typeof(StressCampaign).Assembly;

    [Fact]
    public void The_harness_uses_the_engine_through_its_public_API_only()
    {
        var references = s_stress.GetReferencedAssemblies().Select(a => a.Name).ToArray();
        Assert.Contains("Cairn", references);
        Assert.DoesNotContain("Cairn.Pal", references);
        // No InternalsVisibleTo: the compiler would have let it reach the engine's internals.
        var friends = typeof(StorageEnvironment).Assembly.GetCustomAttributes<System.Runtime.CompilerServices.InternalsVisibleToAttribute>()
            .Select(a => a.AssemblyName);
        Assert.DoesNotContain("Cairn.Stress", friends);
        Assert.DoesNotContain("Cairn.Stress", typeof(StorageEnvironment).Assembly.GetReferencedAssemblies().Select(a => a.Name));
    }

    [Theory]
    [InlineData("Cairn.Stress.Child", "Cairn.Stress.Campaigns")]
    [InlineData("Cairn.Stress.Campaigns", "Cairn.Stress.Child")]
    [InlineData("Cairn.Stress.Workload", "Cairn.Stress.Checking")]
    [InlineData("Cairn.Stress.Workload", "Cairn.Stress.Protocol")]
    [InlineData("Cairn.Stress.Workload", "Cairn.Stress.Child")]
    [InlineData("Cairn.Stress.Workload", "Cairn.Stress.Campaigns")]
    [InlineData("Cairn.Stress.Checking", "Cairn.Stress.Child")]
    [InlineData("Cairn.Stress.Checking", "Cairn.Stress.Campaigns")]
    [InlineData("Cairn.Stress.Protocol", "Cairn.Stress.Child")]
    [InlineData("Cairn.Stress.Protocol", "Cairn.Stress.Campaigns")]
    public void A_part_of_the_harness_does_not_use_another_it_should_not_know(string part, string other)
    {
        var result = Types.InAssembly(s_stress).That().ResideInNamespace(part).ShouldNot().HaveDependencyOn(other).GetResult();
        Assert.True(result.IsSuccessful, $"{part} uses {other}: " + string.Join(", ", result.FailingTypeNames ?? []));
        Assert.NotEmpty(Types.InAssembly(s_stress).That().ResideInNamespace(part).GetTypes());
    }
}
