using System.Net;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Text.Json;
using System.Text.RegularExpressions;
using Cairn.Tests.Support;

namespace Cairn.Tests.Docs;

/// <summary>
/// The docs site (scripts/docs.sh, docs/site): every public type of every documented library has a page, no
/// relative link in the generated pages leads nowhere, and in headless Chromium the API reference's table of
/// contents links every type. Screenshots of the home page and of one API page are kept at
/// artifacts/screenshots/docs-home.png and docs-api.png.
/// </summary>
public partial class DocsSiteTests(DocsSiteBuild site) : IClassFixture<DocsSiteBuild>
{
    private const int ScreenshotWidth = 1280;
    private const int ScreenshotHeight = 900;
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(20);

    [Fact]
    public void The_reference_covers_the_engine_its_platform_layer_and_the_hosting_package()
    {
        foreach (var assembly in new[] { typeof(StorageEnvironment).Assembly, typeof(Cairn.Pal.PalBackend).Assembly,
                                         typeof(Cairn.Extensions.Hosting.CairnOptions).Assembly })
            Assert.Contains(assembly.GetName().Name, site.DocumentedAssemblies);
    }

    [Fact]
    public void Every_public_type_has_a_page_that_names_it()
    {
        var types = PublicTypes().ToList();
        Assert.Contains(types, t => t.FullName == "Cairn.StorageEnvironment");
        var missing = new List<string>();
        foreach (var type in types)
        {
            string page = Path.Combine(site.Site, "api", PageName(type.FullName));
            if (!File.Exists(page) || !File.ReadAllText(page).Contains(WebUtility.HtmlEncode(type.Name), StringComparison.Ordinal))
                missing.Add($"{type.FullName} ({type.Assembly}): {page}");
        }
        Assert.True(missing.Count == 0, $"{missing.Count} of {types.Count} public types have no page:\n" + string.Join("\n", missing));
    }

    [Fact]
    public void No_relative_link_in_the_site_leads_nowhere()
    {
        var broken = new List<string>();
        int checkedLinks = 0;
        foreach (var file in Directory.EnumerateFiles(site.Site, "*.*", SearchOption.AllDirectories))
        {
            IEnumerable<string> targets = Path.GetExtension(file) switch
            {
                ".html" => Links().Matches(File.ReadAllText(file)).Select(m => WebUtility.HtmlDecode(m.Groups["target"].Value)),
                ".json" when Path.GetFileName(file) == "toc.json" => TocLinks(JsonDocument.Parse(File.ReadAllText(file)).RootElement),
                _ => [],
            };
            foreach (var target in targets)
            {
                if (LocalPath(target) is not { } path)
                    continue;
                checkedLinks++;
                string full = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(file)!, path));
                if (!File.Exists(full) && !File.Exists(Path.Combine(full, "index.html")))
                    broken.Add($"{Path.GetRelativePath(site.Site, file)}: {target}");
            }
        }
        Assert.True(checkedLinks > 1000, $"only {checkedLinks} relative links found: the check does not see the site's links");
        Assert.True(broken.Count == 0, $"{broken.Count} broken links:\n" + string.Join("\n", broken.Distinct().Take(100)));
    }

    [Fact]
    public void In_Chromium_the_reference_lists_every_public_type_and_the_pages_are_kept_as_screenshots()
    {
        using var dir = new TestDirectory("docs-site");
        using var server = new StaticFileServer(site.Site);

        // The reference's table of contents as the browser builds it (the pages' side bar is drawn from the
        // same toc, as toc.json; the screenshot below shows it).
        string toc = HeadlessChromium.DumpDom(server.Address("api/toc.html"), dir.Path, Settle);
        var listed = Hrefs().Matches(toc).Select(m => m.Groups["target"].Value).ToHashSet();
        var types = PublicTypes().ToList();
        var unlisted = types.Select(t => PageName(t.FullName)).Where(page => !listed.Contains(page)).ToList();
        Assert.True(unlisted.Count == 0, $"the reference's table of contents does not link {unlisted.Count} of {types.Count} public types: {string.Join(", ", unlisted)}");

        var apiPage = server.Address("api/Cairn.StorageEnvironment.html");
        string dom = HeadlessChromium.DumpDom(apiPage, dir.Path, Settle);
        Assert.Matches(@"<h1[^>]*data-uid=""Cairn.StorageEnvironment""[^>]*>\s*Class", dom);   // the script may break the name with <wbr>
        string home = HeadlessChromium.DumpDom(server.Address("index.html"), dir.Path, Settle);
        Assert.Contains("href=\"guide/durability.html\"", home);

        string screenshots = Path.Combine(TestDirectory.RepositoryRoot, "artifacts", "screenshots");
        foreach (var (address, name) in new[] { (server.Address("index.html"), "docs-home.png"), (apiPage, "docs-api.png") })
        {
            string png = Path.Combine(screenshots, name);
            HeadlessChromium.Screenshot(address, png, ScreenshotWidth, ScreenshotHeight, dir.Path, Settle);
            Assert.Equal((ScreenshotWidth, ScreenshotHeight), HeadlessChromium.PngSize(png));
        }
    }

    private sealed record PublicType(string Assembly, string FullName, string Name);

    /// <summary>Every type visible outside its assembly, read from the documented assemblies' metadata.</summary>
    private IEnumerable<PublicType> PublicTypes()
    {
        foreach (var assembly in site.DocumentedAssemblies)
        {
            using var pe = new PEReader(File.OpenRead(Path.Combine(site.AssemblyDirectory, assembly + ".dll")));
            var reader = pe.GetMetadataReader();
            foreach (var handle in reader.TypeDefinitions)
            {
                var type = reader.GetTypeDefinition(handle);
                if (IsVisible(reader, type) && !reader.GetString(type.Name).StartsWith('<'))
                    yield return new PublicType(assembly, FullName(reader, type), reader.GetString(type.Name).Split('`')[0]);
            }
        }
    }

    private static bool IsVisible(MetadataReader reader, TypeDefinition type) => (type.Attributes & System.Reflection.TypeAttributes.VisibilityMask) switch
    {
        System.Reflection.TypeAttributes.Public => true,
        System.Reflection.TypeAttributes.NestedPublic => IsVisible(reader, reader.GetTypeDefinition(type.GetDeclaringType())),
        _ => false,
    };

    private static string FullName(MetadataReader reader, TypeDefinition type)
    {
        var declaring = type.GetDeclaringType();
        return declaring.IsNil
            ? $"{reader.GetString(type.Namespace)}.{reader.GetString(type.Name)}"
            : $"{FullName(reader, reader.GetTypeDefinition(declaring))}.{reader.GetString(type.Name)}";
    }

    /// <summary>docfx's page for a type: its full name, nested types after a dot, a generic's arity after '-'.</summary>
    private static string PageName(string fullName) => fullName.Replace('`', '-') + ".html";

    /// <summary>A link's file part when it points into the site; null for other sites, mail, scripts, anchors.</summary>
    private static string? LocalPath(string target)
    {
        if (target.Length == 0 || target.StartsWith('#') || target.StartsWith("//") || UriScheme().IsMatch(target))
            return null;
        string path = Uri.UnescapeDataString(target.Split('#', '?')[0]);
        return path.Length == 0 ? null : path;
    }

    private static IEnumerable<string> TocLinks(JsonElement element)
    {
        if (element.ValueKind == JsonValueKind.Object)
            foreach (var property in element.EnumerateObject())
                if (property.Value.ValueKind == JsonValueKind.String && property.Name is "href" or "tocHref" or "topicHref")
                    yield return property.Value.GetString()!;
                else
                    foreach (var link in TocLinks(property.Value))
                        yield return link;
        else if (element.ValueKind == JsonValueKind.Array)
            foreach (var item in element.EnumerateArray())
                foreach (var link in TocLinks(item))
                    yield return link;
    }

    [GeneratedRegex("""\s(?:href|src)\s*=\s*"(?<target>[^"]*)"|\s(?:href|src)\s*=\s*'(?<target>[^']*)'""")]
    private static partial Regex Links();

    [GeneratedRegex("^[a-zA-Z][a-zA-Z0-9+.-]*:")]
    private static partial Regex UriScheme();

    [GeneratedRegex("""href="(?<target>[^"#]*)""")]
    private static partial Regex Hrefs();
}
