using System.Xml.Linq;

namespace Cairn.PackageTests;

/// <summary>
/// The package 'Cairn.Reports' (src/Reports): its files, and a manifest that depends on 'Cairn' of the same version and
/// on nothing else. Packed into a folder of its own, after the package 'Cairn' (same collection: one pack at a time).
/// </summary>
[Collection(PackageCollection.Name)]
public sealed class ReportsPackageTests(PackedCairn packed)
{
    [Fact]
    public void Package_holds_the_assembly_its_docs_readme_and_licence_and_depends_on_Cairn_of_the_same_version()
    {
        var feed = Path.Combine(packed.WorkDirectory, "reports-feed");
        var output = Tool.Run("dotnet", ["pack", Path.Combine(packed.RepositoryRoot, "src", "Reports", "Reports.csproj"),
                "-c", "Release", "-o", feed, "-nodeReuse:false", "-p:UseSharedCompilation=false"],
            packed.RepositoryRoot, TimeSpan.FromMinutes(10)).Output;
        var package = Path.Combine(feed, $"Cairn.Reports.{packed.Version}.nupkg");
        Assert.True(File.Exists(package), $"no {package}:{Environment.NewLine}{output}");

        var files = PackedCairn.Entries(package)
            .Where(e => e is not ("_rels/.rels" or "[Content_Types].xml") && !e.StartsWith("package/services/metadata/", StringComparison.Ordinal));
        Assert.Equal(["Cairn.Reports.nuspec", "LICENSE", "README.md", "lib/net10.0/Cairn.Reports.dll", "lib/net10.0/Cairn.Reports.xml"], files);

        var nuspec = XDocument.Load(new MemoryStream(PackedCairn.Read(package, "Cairn.Reports.nuspec")));
        var ns = nuspec.Root!.Name.Namespace;
        var metadata = nuspec.Root.Element(ns + "metadata")!;
        Assert.Equal("Cairn.Reports", metadata.Element(ns + "id")!.Value);
        Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
        var dependency = Assert.Single(metadata.Descendants(ns + "dependency"));
        Assert.Equal(("Cairn", packed.Version), ((string?)dependency.Attribute("id"), (string?)dependency.Attribute("version")));

        var docs = XDocument.Load(new MemoryStream(PackedCairn.Read(package, "lib/net10.0/Cairn.Reports.xml")));
        Assert.Contains(docs.Descendants("member"), m => (string?)m.Attribute("name") == "T:Cairn.Reports.IoStatsHtml");
    }
}
