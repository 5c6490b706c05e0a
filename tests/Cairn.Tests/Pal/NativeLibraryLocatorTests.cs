using Cairn.Pal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Pal;

public class NativeLibraryLocatorTests
{
    [Fact]
    public void Error_lists_every_path_tried_and_why()
    {
        using var dir = new TestDirectory("locator");
        var appDir = Directory.CreateDirectory(dir.File("app")).FullName;
        var pluginDir = Directory.CreateDirectory(dir.File("plugin")).FullName;
        // A file that exists but is not a library must be reported as such, not as missing.
        File.WriteAllText(Path.Combine(pluginDir, "libcairnpal.so"), "not an ELF file");

        var locator = new NativeLibraryLocator([appDir, pluginDir], ["linux-x64"], "cairnpal", "libcairnpal.so",
            overridePath: null, searchOsPaths: false);

        var error = Assert.Throws<NativeLibraryNotFoundException>(() => locator.Load());

        Assert.Equal(4, error.AttemptedPaths.Count);
        foreach (var candidate in locator.CandidatePaths)
            Assert.Contains(candidate, error.Message);
        Assert.Contains(Path.Combine(appDir, "runtimes", "linux-x64", "native", "libcairnpal.so") + ": not found", error.Message);
        Assert.Contains(Path.Combine(pluginDir, "libcairnpal.so") + ": exists but failed to load", error.Message);
        Assert.Contains(NativeLibraryLocator.OverrideVariable, error.Message);
    }

    [Fact]
    public void Override_path_is_tried_first()
    {
        using var dir = new TestDirectory("locator-override");
        var explicitPath = dir.File("custom/libcairnpal.so");

        var locator = new NativeLibraryLocator([dir.Path], ["linux-x64"], "cairnpal", "libcairnpal.so",
            overridePath: explicitPath, searchOsPaths: false);

        Assert.Equal(explicitPath, locator.CandidatePaths[0]);
        var error = Assert.Throws<NativeLibraryNotFoundException>(() => locator.Load());
        Assert.StartsWith(explicitPath + ": not found", error.AttemptedPaths[0]);
    }

    [Fact]
    public void Current_process_finds_the_library_built_by_the_project()
    {
        var locator = NativeLibraryLocator.ForCurrentProcess();
        Assert.NotEqual(0, locator.Load());
        Assert.Contains(locator.CandidatePaths, p => p.EndsWith(Path.Combine("runtimes", "linux-x64", "native", "libcairnpal.so")));
    }

    [Theory]
    [InlineData("osx-arm64", "libcairnpal.dylib")]
    [InlineData("linux-musl-x64", "libcairnpal.so")]
    [InlineData("win-arm64", "cairnpal.dll")]
    public void Error_on_a_platform_without_a_packaged_library_names_it_and_says_what_to_do(string platform, string fileName)
    {
        using var dir = new TestDirectory("locator-unsupported");
        var locator = new NativeLibraryLocator([dir.Path], [platform], "cairnpal", fileName,
            overridePath: null, searchOsPaths: false, platform: platform);

        Assert.False(locator.IsSupportedPlatform);
        var error = Assert.Throws<NativeLibraryNotFoundException>(() => locator.Load());

        Assert.Equal(platform, error.Platform);
        Assert.StartsWith($"Cairn's native library (cairnpal) is not available for this platform, {platform}: " +
            "the Cairn package carries it for linux-x64, linux-arm64, win-x64 only.", error.Message);
        Assert.Contains("build native/ from Cairn's source repository with CMake", error.Message);
        Assert.Contains($"set the environment variable {NativeLibraryLocator.OverrideVariable} to the built library's full path", error.Message);
        Assert.Contains(Path.Combine(dir.Path, "runtimes", platform, "native", fileName) + ": not found", error.Message);
    }

    [Fact]
    public void Error_on_a_supported_platform_says_where_the_package_puts_the_library()
    {
        using var dir = new TestDirectory("locator-supported");
        var locator = new NativeLibraryLocator([dir.Path], ["linux-arm64"], "cairnpal", "libcairnpal.so",
            overridePath: null, searchOsPaths: false, platform: "linux-arm64");

        var error = Assert.Throws<NativeLibraryNotFoundException>(() => locator.Load());

        Assert.StartsWith("Cairn's native library libcairnpal.so could not be loaded on linux-arm64. Tried:", error.Message);
        Assert.Contains("The Cairn package carries it as runtimes/linux-arm64/native/libcairnpal.so", error.Message);
        Assert.Contains("It needs glibc 2.34 or later.", error.Message);
        Assert.DoesNotContain("not available for this platform", error.Message);
    }

    [Fact]
    public void This_machine_is_a_supported_platform()
    {
        Assert.Equal("linux-x64", NativeLibraryLocator.CurrentPlatform());
        Assert.True(NativeLibraryLocator.ForCurrentProcess().IsSupportedPlatform);
        Assert.Equal(["linux-x64", "linux-arm64", "win-x64"], NativeLibraryLocator.SupportedPlatforms);
    }
}
