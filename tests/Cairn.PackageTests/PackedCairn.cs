using System.IO.Compression;
using System.Text.RegularExpressions;

namespace Cairn.PackageTests;

/// <summary>The package tests share one pack (and run one after another).</summary>
[CollectionDefinition(Name)]
public sealed class PackageCollection : ICollectionFixture<PackedCairn>
{
    public const string Name = "package";
}

/// <summary>
/// Packs src/Storage once for the package tests, into a folder of its own under the repository's ignored
/// .scratch (the local feed), and removes that folder afterwards.
/// </summary>
public sealed partial class PackedCairn : IDisposable
{
    public PackedCairn()
    {
        RepositoryRoot = FindRepositoryRoot();
        WorkDirectory = Path.Combine(RepositoryRoot, ".scratch", "package-test", Guid.NewGuid().ToString("N"));
        FeedDirectory = Path.Combine(WorkDirectory, "feed");
        Directory.CreateDirectory(FeedDirectory);

        // Release, as a package is built; the build is incremental when the solution was just built so.
        PackOutput = Tool.Run("dotnet", ["pack", Path.Combine(RepositoryRoot, "src", "Storage", "Storage.csproj"),
                "-c", "Release", "-o", FeedDirectory, "-nodeReuse:false", "-p:UseSharedCompilation=false"],
            RepositoryRoot, TimeSpan.FromMinutes(10)).Output;

        var packages = Directory.GetFiles(FeedDirectory, "Cairn.*.nupkg");
        var snupkgs = Directory.GetFiles(FeedDirectory, "Cairn.*.snupkg");
        if (packages.Length != 1)
            throw new InvalidOperationException($"expected one Cairn .nupkg in {FeedDirectory}, found {packages.Length}:{Environment.NewLine}{PackOutput}");
        PackagePath = packages[0];
        SymbolsPackagePath = snupkgs.Length == 1 ? snupkgs[0] : null;
        var name = Path.GetFileNameWithoutExtension(PackagePath);
        Version = name["Cairn.".Length..];
    }

    public string RepositoryRoot { get; }

    public string WorkDirectory { get; }

    public string FeedDirectory { get; }

    public string PackOutput { get; }

    public string PackagePath { get; }

    public string? SymbolsPackagePath { get; }

    /// <summary>The version the package was given (from Directory.Build.props), e.g. 0.1.0-preview.1.</summary>
    public string Version { get; }

    public static IReadOnlyList<string> Entries(string package)
    {
        using var zip = ZipFile.OpenRead(package);
        return zip.Entries.Select(e => e.FullName).Order(StringComparer.Ordinal).ToArray();
    }

    public static byte[] Read(string package, string entry)
    {
        using var zip = ZipFile.OpenRead(package);
        var found = zip.GetEntry(entry) ?? throw new FileNotFoundException($"{entry} is not in {package}");
        using var stream = found.Open();
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

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
