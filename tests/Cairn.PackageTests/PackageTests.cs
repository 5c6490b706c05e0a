using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Cairn.Pal;

namespace Cairn.PackageTests;

/// <summary>
/// The package 'Cairn' as a user gets it: what is in it, what its manifest says, and a consumer project
/// outside the repository that restores it by name from a local feed, builds and runs.
/// </summary>
[Collection(PackageCollection.Name)]
public sealed class PackageTests(PackedCairn packed)
{
    // The packaging files every .nupkg has (Open Packaging Conventions), not Cairn's content.
    private static bool IsPackagingFile(string entry)
        => entry is "_rels/.rels" or "[Content_Types].xml" || entry.StartsWith("package/services/metadata/", StringComparison.Ordinal);

    internal static readonly Dictionary<string, string> NativeFileNames = new()
    {
        ["linux-x64"] = "libcairnpal.so",
        ["linux-arm64"] = "libcairnpal.so",
        ["win-x64"] = "cairnpal.dll",
    };

    [Fact]
    public void Package_holds_the_assemblies_their_docs_the_native_libraries_and_nothing_else()
    {
        var expected = new List<string>
        {
            "Cairn.nuspec", "LICENSE", "README.md", "THIRD-PARTY-NOTICES.txt",
            "lib/net10.0/Cairn.dll", "lib/net10.0/Cairn.xml", "lib/net10.0/Cairn.Pal.dll", "lib/net10.0/Cairn.Pal.xml",
        };
        // Exactly the platforms the loader calls supported: one library each, none missing, none extra.
        foreach (var platform in NativeLibraryLocator.SupportedPlatforms)
            expected.Add($"runtimes/{platform}/native/{NativeFileNames[platform]}");

        var files = PackedCairn.Entries(packed.PackagePath).Where(e => !IsPackagingFile(e)).ToArray();

        Assert.Equal(expected.Order(StringComparer.Ordinal), files);
        Assert.DoesNotContain(files, f => f.Contains("Test", StringComparison.OrdinalIgnoreCase)
            || f.Contains("Bench", StringComparison.OrdinalIgnoreCase) || f.Contains("Demo", StringComparison.OrdinalIgnoreCase));
    }

    [Fact]
    public void Native_libraries_are_built_for_their_platforms()
    {
        var linuxX64 = PackedCairn.Read(packed.PackagePath, "runtimes/linux-x64/native/libcairnpal.so");
        var linuxArm64 = PackedCairn.Read(packed.PackagePath, "runtimes/linux-arm64/native/libcairnpal.so");
        var winX64 = PackedCairn.Read(packed.PackagePath, "runtimes/win-x64/native/cairnpal.dll");

        Assert.Equal(62, ElfMachine(linuxX64));   // EM_X86_64
        Assert.Equal(183, ElfMachine(linuxArm64)); // EM_AARCH64
        Assert.Equal(0x8664, PeMachine(winX64));   // IMAGE_FILE_MACHINE_AMD64
        Assert.True((PeCharacteristics(winX64) & 0x2000) != 0, "cairnpal.dll is not a DLL (IMAGE_FILE_DLL)");
    }

    [Fact]
    public void Symbols_package_holds_both_assemblies_symbols()
    {
        Assert.NotNull(packed.SymbolsPackagePath);
        var files = PackedCairn.Entries(packed.SymbolsPackagePath!).Where(e => !IsPackagingFile(e)).ToArray();
        Assert.Equal(["Cairn.nuspec", "lib/net10.0/Cairn.Pal.pdb", "lib/net10.0/Cairn.pdb"], files);
        Assert.DoesNotContain(PackedCairn.Entries(packed.PackagePath), e => e.EndsWith(".pdb", StringComparison.Ordinal));
    }

    [Fact]
    public void Xml_documentation_reaches_the_package()
    {
        var cairn = Xml("lib/net10.0/Cairn.xml");
        var pal = Xml("lib/net10.0/Cairn.Pal.xml");

        string Summary(XDocument doc, string member) => doc.Descendants("member")
            .Single(m => (string?)m.Attribute("name") == member).Element("summary")!.Value.Trim();

        Assert.NotEmpty(Summary(cairn, "T:Cairn.StorageEnvironment"));
        Assert.NotEmpty(Summary(cairn, "M:Cairn.WriteTransaction.Commit"));
        Assert.NotEmpty(Summary(pal, "T:Cairn.DiskFullException"));
    }

    [Fact]
    public void Manifest_is_a_preview_with_licence_readme_repository_and_only_the_expected_dependencies()
    {
        var nuspec = Xml("Cairn.nuspec");
        var ns = nuspec.Root!.Name.Namespace;
        var metadata = nuspec.Root.Element(ns + "metadata")!;
        string Field(string name) => metadata.Element(ns + name)?.Value ?? "";

        Assert.Equal("Cairn", Field("id"));
        Assert.Equal(packed.Version, Field("version"));
        Assert.Matches(PackedCairn.PreviewVersion(), packed.Version);
        var license = metadata.Element(ns + "license")!;
        Assert.Equal(("expression", "MIT"), ((string?)license.Attribute("type"), license.Value));
        Assert.Equal("README.md", Field("readme"));
        Assert.False(string.IsNullOrWhiteSpace(Field("description")));
        Assert.False(string.IsNullOrWhiteSpace(Field("releaseNotes")));
        Assert.False(string.IsNullOrWhiteSpace(Field("authors")));
        Assert.Contains("storage", Field("tags").Split(' '));

        var repository = metadata.Element(ns + "repository")!;
        Assert.Equal("git", (string?)repository.Attribute("type"));
        var head = Tool.Run("git", ["rev-parse", "HEAD"], packed.RepositoryRoot, TimeSpan.FromMinutes(1), check: false);
        if (head.ExitCode == 0)
            Assert.Equal(head.Output.Trim(), (string?)repository.Attribute("commit"));

        var dependencies = metadata.Descendants(ns + "dependency").Select(d => (string?)d.Attribute("id") ?? "").Order(StringComparer.Ordinal).ToArray();
        // A new dependency of the package is a deliberate change of this list.
        Assert.Equal(["K4os.Compression.LZ4", "Microsoft.Extensions.Logging.Abstractions", "System.IO.Hashing"], dependencies);
    }

    [Fact]
    public void A_project_outside_the_repository_restores_Cairn_by_name_builds_and_runs_the_readme_example()
    {
        using var consumer = new Consumer(packed, ReadmeExample());
        // The example keeps its data under the temporary folder; TMPDIR puts that on the real disk, in .scratch.
        var temp = Path.Combine(packed.WorkDirectory, "tmp") + Path.DirectorySeparatorChar;
        Directory.CreateDirectory(temp);

        consumer.Dotnet("restore");
        consumer.Dotnet("build", "--no-restore", "-c", "Release");

        // The Cairn restored is the one packed here, byte for byte.
        var restored = Path.Combine(consumer.PackagesDirectory, "cairn", packed.Version.ToLowerInvariant());
        Assert.Equal(Convert.ToBase64String(SHA512.HashData(File.ReadAllBytes(packed.PackagePath))),
            File.ReadAllText(Path.Combine(restored, $"cairn.{packed.Version.ToLowerInvariant()}.nupkg.sha512")).Trim());

        var output = Path.Combine(consumer.Directory, "bin", "Release", "net10.0");
        foreach (var platform in NativeLibraryLocator.SupportedPlatforms)
            Assert.True(File.Exists(Path.Combine(output, "runtimes", platform, "native", NativeFileNames[platform])), $"no {platform} library in the consumer's output");

        var run = Tool.Run("dotnet", [Path.Combine(output, "Consumer.dll")], consumer.Directory, TimeSpan.FromMinutes(2),
            consumer.Environment(("TMPDIR", temp)));

        Assert.Contains("alice = {\"name\":\"Alice\"}", run.Output);
        Assert.Contains("journal", run.Output); // the I/O statistics summary
        Assert.True(File.Exists(Path.Combine(temp, "cairn-example", "cairn.data")), $"no data file under {temp}:{Environment.NewLine}{run.Output}");
    }

    private XDocument Xml(string entry) => XDocument.Load(new MemoryStream(PackedCairn.Read(packed.PackagePath, entry)));

    /// <summary>The C# example of the package's README (its "Use" section): the consumer runs exactly what users read.</summary>
    private string ReadmeExample()
    {
        var readme = File.ReadAllText(Path.Combine(packed.RepositoryRoot, "src", "Storage", "README.md"));
        var match = Regex.Match(readme, @"## Use\s+```csharp\n(?<code>.*?)\n```", RegexOptions.Singleline);
        Assert.True(match.Success, "src/Storage/README.md has no ```csharp block under '## Use'");
        // The same text the package carries.
        Assert.Equal(readme.ReplaceLineEndings(), Encoding.UTF8.GetString(PackedCairn.Read(packed.PackagePath, "README.md")).ReplaceLineEndings());
        return match.Groups["code"].Value + "\n";
    }

    private static int ElfMachine(byte[] file)
    {
        Assert.True(file.Length > 20 && file[0] == 0x7F && file[1] == (byte)'E' && file[2] == (byte)'L' && file[3] == (byte)'F', "not an ELF file");
        Assert.Equal(2, file[4]); // ELFCLASS64
        Assert.Equal(3, BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(16))); // ET_DYN: a shared object
        return BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(18));
    }

    private static int PeHeader(byte[] file)
    {
        Assert.True(file.Length > 0x40 && file[0] == (byte)'M' && file[1] == (byte)'Z', "not a PE file");
        int pe = BinaryPrimitives.ReadInt32LittleEndian(file.AsSpan(0x3C));
        Assert.True(file.AsSpan(pe, 4).SequenceEqual("PE\0\0"u8), "no PE signature");
        return pe;
    }

    private static int PeMachine(byte[] file) => BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(PeHeader(file) + 4));

    private static int PeCharacteristics(byte[] file) => BinaryPrimitives.ReadUInt16LittleEndian(file.AsSpan(PeHeader(file) + 22));
}
