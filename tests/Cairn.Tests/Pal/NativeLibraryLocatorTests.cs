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
}
