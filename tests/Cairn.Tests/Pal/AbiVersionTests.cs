using System.Diagnostics;
using Cairn.Pal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Pal;

public class AbiVersionTests
{
    [Fact]
    public void Loaded_library_has_the_expected_version()
        => Assert.Equal(PalLibrary.ExpectedAbiVersion, PalLibrary.LoadedAbiVersion);

    [Fact]
    public void A_different_version_throws_naming_both()
    {
        var error = Assert.Throws<PalAbiMismatchException>(() => PalLibrary.CheckAbiVersion(PalLibrary.ExpectedAbiVersion + 1));
        Assert.Equal(PalLibrary.ExpectedAbiVersion, error.ExpectedVersion);
        Assert.Equal(PalLibrary.ExpectedAbiVersion + 1, error.ActualVersion);
        Assert.Contains($"ABI version {PalLibrary.ExpectedAbiVersion + 1}", error.Message);
    }

    /// <summary>
    /// End to end: a real shared library reporting another ABI version, loaded by a child process
    /// through CAIRN_PAL_LIBRARY, must stop that process at its first native call with the mismatch.
    /// </summary>
    [Fact]
    public void A_mismatched_library_is_refused_at_first_use()
    {
        using var dir = new TestDirectory("abi-mismatch");
        var source = dir.File("fake.c");
        var library = dir.File("libfake.so");
        File.WriteAllText(source, """
            #include <stdint.h>
            __attribute__((visibility("default"))) int32_t cairn_get_abi_version(int32_t *version, int32_t *os_error)
            { *version = 99; *os_error = 0; return 0; }
            """);
        Run("cc", $"-shared -fPIC -o \"{library}\" \"{source}\"", environment: null, out int ccExit, out string ccOutput);
        Assert.True(ccExit == 0, ccOutput);

        var demo = Path.Combine(AppContext.BaseDirectory, "Cairn.Demo.dll");
        Run("dotnet", $"\"{demo}\" --dir \"{dir.File("demo")}\"", new() { [NativeLibraryLocator.OverrideVariable] = library },
            out int exit, out string output);

        Assert.NotEqual(0, exit);
        Assert.Contains("PalAbiMismatchException", output);
        Assert.Contains("ABI version 99", output);
    }

    private static void Run(string file, string arguments, Dictionary<string, string>? environment, out int exitCode, out string output)
    {
        var start = new ProcessStartInfo(file, arguments) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var (key, value) in environment ?? [])
            start.Environment[key] = value;
        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        output = process.StandardOutput.ReadToEnd();
        Assert.True(process.WaitForExit(TimeSpan.FromMinutes(2)), $"{file} {arguments} did not exit");
        output += stderr.Result;
        exitCode = process.ExitCode;
    }
}
