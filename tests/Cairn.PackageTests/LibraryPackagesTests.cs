namespace Cairn.PackageTests;

/// <summary>
/// The packages beside the engine: each depends on 'Cairn' of the same version; 'Cairn.Reports' holds its assembly, docs,
/// readme and licence and nothing else. (ApplicationPackagesTests runs them.)
/// </summary>
[Collection(PackageCollection.Name)]
public sealed class LibraryPackagesTests(PackedCairn packed)
{
    [Fact]
    public void Reports_package_holds_the_assembly_its_docs_readme_and_licence_and_depends_on_Cairn_only()
    {
        var package = packed.Packages["Cairn.Reports"];
        var files = PackedCairn.ContentEntries(package);
        Assert.Equal(["Cairn.Reports.nuspec", "LICENSE", "README.md", "lib/net10.0/Cairn.Reports.dll", "lib/net10.0/Cairn.Reports.xml"], files);

        var nuspec = PackedCairn.Manifest(package, "Cairn.Reports");
        var ns = nuspec.Root!.Name.Namespace;
        var metadata = nuspec.Root.Element(ns + "metadata")!;
        Assert.Equal("Cairn.Reports", metadata.Element(ns + "id")!.Value);
        Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
        var dependency = Assert.Single(metadata.Descendants(ns + "dependency"));
        Assert.Equal(("Cairn", packed.Version), ((string?)dependency.Attribute("id"), (string?)dependency.Attribute("version")));

        var docs = System.Xml.Linq.XDocument.Load(new MemoryStream(PackedCairn.Read(package, "lib/net10.0/Cairn.Reports.xml")));
        Assert.Contains(docs.Descendants("member"), m => (string?)m.Attribute("name") == "T:Cairn.Reports.IoStatsHtml");
    }

    [Theory]
    [InlineData("Cairn.Cluster")]
    [InlineData("Cairn.Extensions.Hosting")]
    [InlineData("Cairn.Reports")]
    [InlineData("Cairn.Stress")]
    public void A_library_package_depends_on_Cairn_of_the_same_version(string id)
    {
        var nuspec = PackedCairn.Manifest(packed.Packages[id], id);
        var ns = nuspec.Root!.Name.Namespace;
        var cairn = Assert.Single(nuspec.Descendants(ns + "dependency"), d => (string?)d.Attribute("id") == "Cairn");
        Assert.Equal(packed.Version, (string?)cairn.Attribute("version"));
        Assert.Equal(packed.Version, nuspec.Descendants(ns + "version").First().Value);
    }
}
