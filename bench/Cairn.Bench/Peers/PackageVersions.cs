using System.Reflection;

namespace Cairn.Bench.Peers;

/// <summary>The NuGet version a peer's assembly was built as (its informational version without the commit suffix), for Describe lines.</summary>
public static class PackageVersions
{
    public static string Of(Type typeInPackage)
    {
        var version = typeInPackage.Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion
            ?? typeInPackage.Assembly.GetName().Version?.ToString() ?? "?";
        var plus = version.IndexOf('+', StringComparison.Ordinal);
        return plus >= 0 ? version[..plus] : version;
    }
}
