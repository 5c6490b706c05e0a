using System.IO.Compression;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace Cairn.PackageTests;

/// <summary>The package tests share one pack (and run one after another).</summary>
[CollectionDefinition(Name)]
public sealed class PackageCollection : ICollectionFixture<PackedCairn>
{
    public const string Name = "package";
}

/// <summary>
/// Packs every package the repository ships (each project under src/ that is packable: the engine 'Cairn', its reports,
/// its hosting integration, the stress harness and the 'cairn' tool) once for the package tests, in one 'dotnet pack'
/// of a solution filter, into one folder under the repository's ignored .scratch (the local feed), and removes that
/// folder afterwards.
/// </summary>
public sealed partial class PackedCairn : IDisposable
{
    public PackedCairn()
    {
        RepositoryRoot = FindRepositoryRoot();
        WorkDirectory = Path.Combine(RepositoryRoot, ".scratch", "package-test", Guid.NewGuid().ToString("N"));
        FeedDirectory = Path.Combine(WorkDirectory, "feed");
        Directory.CreateDirectory(FeedDirectory);
        ShippedProjects = FindShippedProjects(RepositoryRoot);

        // One pack of all of them: one MSBuild start and one restore, the shared projects built once. Release, as a
        // package is built; the build is incremental when the solution was just built so.
        string filter = Path.Combine(WorkDirectory, "shipped.slnf");
        File.WriteAllText(filter, JsonSerializer.Serialize(new
        {
            solution = new { path = Path.Combine(RepositoryRoot, "Storage.sln"), projects = ShippedProjects.Values.Select(p => p.Replace('/', '\\')).ToArray() },
        }));
        PackOutput = Tool.Run("dotnet", ["pack", filter, "-c", "Release", "-o", FeedDirectory, "-nodeReuse:false", "-p:UseSharedCompilation=false"],
            RepositoryRoot, TimeSpan.FromMinutes(10)).Output;

        var packages = Directory.GetFiles(FeedDirectory, "*.nupkg");
        Version = ShippedVersion(packages);
        Packages = ShippedProjects.Keys.ToDictionary(id => id, id =>
        {
            string path = Path.Combine(FeedDirectory, $"{id}.{Version}.nupkg");
            return File.Exists(path) ? path : throw new InvalidOperationException($"no {id}.{Version}.nupkg in {FeedDirectory}:{Environment.NewLine}{PackOutput}");
        });
        if (packages.Length != Packages.Count)
            throw new InvalidOperationException($"expected {Packages.Count} packages in {FeedDirectory}, found {string.Join(", ", packages.Select(Path.GetFileName))}");
        PackagePath = Packages["Cairn"];
        var symbols = Path.ChangeExtension(PackagePath, ".snupkg");
        SymbolsPackagePath = File.Exists(symbols) ? symbols : null;
    }

    public string RepositoryRoot { get; }

    public string WorkDirectory { get; }

    public string FeedDirectory { get; }

    public string PackOutput { get; }

    /// <summary>Every package the repository ships (package id to its project, relative to the root, e.g. src/Reports/Reports.csproj).</summary>
    public IReadOnlyDictionary<string, string> ShippedProjects { get; }

    /// <summary>Every package packed (package id to its .nupkg in the feed).</summary>
    public IReadOnlyDictionary<string, string> Packages { get; }

    /// <summary>The engine's package, 'Cairn'.</summary>
    public string PackagePath { get; }

    public string? SymbolsPackagePath { get; }

    /// <summary>The version every package was given (from Directory.Build.props), e.g. 0.2.0-preview.1.</summary>
    public string Version { get; }

    /// <summary>The version of a third-party package the repository pins (Directory.Packages.props), for a consumer that needs it too.</summary>
    public string PinnedVersion(string packageId)
        => XDocument.Load(Path.Combine(RepositoryRoot, "Directory.Packages.props")).Descendants("PackageVersion")
            .Single(p => (string?)p.Attribute("Include") == packageId).Attribute("Version")!.Value;

    public static IReadOnlyList<string> Entries(string package)
    {
        using var zip = ZipFile.OpenRead(package);
        return zip.Entries.Select(e => e.FullName).Order(StringComparer.Ordinal).ToArray();
    }

    /// <summary>A package's own files: its entries without the packaging files every .nupkg has (Open Packaging Conventions).</summary>
    public static IEnumerable<string> ContentEntries(string package)
        => Entries(package).Where(e => e is not ("_rels/.rels" or "[Content_Types].xml") && !e.StartsWith("package/services/metadata/", StringComparison.Ordinal));

    public static byte[] Read(string package, string entry)
    {
        using var zip = ZipFile.OpenRead(package);
        var found = zip.GetEntry(entry) ?? throw new FileNotFoundException($"{entry} is not in {package}");
        using var stream = found.Open();
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    public static XDocument Manifest(string package, string packageId)
        => XDocument.Load(new MemoryStream(Read(package, $"{packageId}.nuspec")));

    public void Dispose()
    {
        try
        {
            Directory.Delete(WorkDirectory, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }

    /// <summary>The projects under src/ that are packable, by package id: what the repository ships.</summary>
    private static Dictionary<string, string> FindShippedProjects(string root)
    {
        var shipped = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var project in Directory.GetFiles(Path.Combine(root, "src"), "*.csproj", SearchOption.AllDirectories))
        {
            var properties = XDocument.Load(project).Descendants().Where(e => e.Parent?.Name == "PropertyGroup").ToArray();
            string? Property(string name) => properties.LastOrDefault(e => e.Name == name)?.Value.Trim();
            if (Property("IsPackable") != "true")
                continue;
            string id = Property("PackageId") ?? throw new InvalidOperationException($"{project} is packable but names no PackageId");
            shipped.Add(id, Path.GetRelativePath(root, project).Replace('\\', '/'));
        }
        return shipped;
    }

    private static string ShippedVersion(string[] packages)
    {
        var cairn = packages.Select(Path.GetFileNameWithoutExtension).SingleOrDefault(n => n!.StartsWith("Cairn.", StringComparison.Ordinal)
            && char.IsDigit(n["Cairn.".Length]))
            ?? throw new InvalidOperationException($"no Cairn package among {string.Join(", ", packages.Select(Path.GetFileName))}");
        return cairn["Cairn.".Length..];
    }

    private static string FindRepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Storage.sln")))
                return dir.FullName;
        }
        throw new InvalidOperationException($"No Storage.sln above {AppContext.BaseDirectory}: the package test runs from the repository");
    }

    [GeneratedRegex(@"^0\.\d+\.\d+-preview\.[0-9A-Za-z.-]+$")]
    public static partial Regex PreviewVersion();
}
