namespace Cairn.PackageTests;

/// <summary>
/// A console project outside the repository (under the system's temporary folder) that references packages by
/// name and version (the package 'Cairn' unless told otherwise), restored from the local feed beside the user's own
/// sources into a packages folder of the test's own. Removed on dispose.
/// </summary>
internal sealed class Consumer : IDisposable
{
    public Consumer(PackedCairn packed, string program, string extraProperties = "", params (string Id, string Version)[] packages)
    {
        if (packages.Length == 0)
            packages = [("Cairn", packed.Version)];
        Directory = Path.Combine(Path.GetTempPath(), $"cairn-package-consumer-{Guid.NewGuid():N}");
        if (Path.GetFullPath(Directory).StartsWith(packed.RepositoryRoot, StringComparison.Ordinal))
            throw new InvalidOperationException($"the consumer must live outside the repository, not in {Directory}");
        // Its own packages folder: a Cairn of the same version left in the user's global cache by an earlier
        // pack must not stand in for this one.
        PackagesDirectory = Path.Combine(packed.WorkDirectory, "packages");

        System.IO.Directory.CreateDirectory(Directory);
        // Outside the repository none of its Directory.Build.props/Directory.Packages.props apply; empty ones of
        // its own stop any found further up.
        File.WriteAllText(Path.Combine(Directory, "Directory.Build.props"), "<Project />\n");
        File.WriteAllText(Path.Combine(Directory, "Directory.Build.targets"), "<Project />\n");
        File.WriteAllText(Path.Combine(Directory, "Directory.Packages.props"), "<Project />\n");
        // The local feed beside the sources the user already has (the registry, for the framework packages).
        File.WriteAllText(Path.Combine(Directory, "nuget.config"), NuGetConfig(packed.FeedDirectory, onlyTheFeed: false));
        string references = string.Join("\n", packages.Select(p => $"<PackageReference Include=\"{p.Id}\" Version=\"{p.Version}\" />"));
        File.WriteAllText(Path.Combine(Directory, "Consumer.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net10.0</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
                <Nullable>enable</Nullable>
                <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
                {extraProperties}
              </PropertyGroup>
              <ItemGroup>
                {references}
              </ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(Directory, "Program.cs"), program);
    }

    public string Directory { get; }

    /// <summary>A nuget.config that adds <paramref name="feed"/> to the user's sources, or with <paramref name="onlyTheFeed"/> makes it the only one.</summary>
    public static string NuGetConfig(string feed, bool onlyTheFeed) => $"""
        <?xml version="1.0" encoding="utf-8"?>
        <configuration>
          <packageSources>
            {(onlyTheFeed ? "<clear />" : "")}
            <add key="cairn-package-test" value="{feed}" />
          </packageSources>
        </configuration>
        """;

    public string PackagesDirectory { get; }

    /// <summary>The folder a package was restored into (its id and version in lower case, as NuGet lays them out).</summary>
    public string Restored(string packageId, string version)
        => Path.Combine(PackagesDirectory, packageId.ToLowerInvariant(), version.ToLowerInvariant());

    /// <summary>Runs dotnet (restore, build, publish) in the consumer's folder with its packages folder.</summary>
    public Tool.Result Dotnet(params string[] arguments)
        => Tool.Run("dotnet", [.. arguments, "-nodeReuse:false", "-p:UseSharedCompilation=false"], Directory, TimeSpan.FromMinutes(10), Environment());

    public Dictionary<string, string?> Environment(params (string Name, string? Value)[] more)
    {
        var environment = new Dictionary<string, string?>
        {
            ["NUGET_PACKAGES"] = PackagesDirectory,
            [Pal.NativeLibraryLocator.OverrideVariable] = null,
        };
        foreach (var (name, value) in more)
            environment[name] = value;
        return environment;
    }

    public void Dispose()
    {
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }
}
