namespace Cairn.PackageTests;

/// <summary>
/// The package's linux-arm64 and win-x64 libraries run, not only build: a consumer of the package is
/// published self-contained for each and run under qemu-user (linux-arm64) and wine (win-x64), as the
/// native tests are (docs/pal.md). It opens an environment, commits through a write transaction and the
/// merger, verifies, reopens and reads back. A missing qemu-aarch64 or wine fails the test with the line
/// that installs it: a machine without them must never pass for one that ran these.
/// </summary>
[Collection(PackageCollection.Name)]
public sealed class CrossRunTests(PackedCairn packed)
{
    private const string Program = """
        using System.Text;
        using Cairn;
        using Cairn.Pal;

        string directory = args[0];
        using (var env = StorageEnvironment.Open(new StorageOptions(directory)))
        {
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("t").Put("key"u8, "value"u8);
                tx.Commit();
            }
            await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("merged"u8, "yes"u8));
            env.Verify();
        }
        using (var env = StorageEnvironment.Open(new StorageOptions(directory)))
        using (var tx = env.BeginRead())
        {
            var tree = tx.OpenTree("t");
            Console.WriteLine($"read back: key={Encoding.UTF8.GetString(tree.Get("key"u8)!)} merged={Encoding.UTF8.GetString(tree.Get("merged"u8)!)} count={tree.Count}");
        }
        Console.WriteLine($"platform {NativeLibraryLocator.CurrentPlatform()}, data-file writer {PalIo.GetBackend().Backend}");
        """;

    private const string Expected = "read back: key=value merged=yes count=2";

    // Only the .NET runtime pack is fetched for the publish, not also ASP.NET Core's (about 80 MB a runtime).
    private const string ConsumerProperties = "<DisableTransitiveFrameworkReferenceDownloads>true</DisableTransitiveFrameworkReferenceDownloads>";

    [Fact]
    public void Published_for_linux_arm64_runs_under_qemu()
    {
        string qemu = RequireTool("qemu-aarch64", "apt-get install qemu-user");
        RequireTool("aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross"); // brings the arm64 glibc
        using var consumer = new Consumer(packed, Program, ConsumerProperties);
        var output = Publish(consumer, "linux-arm64");
        var data = Path.Combine(packed.WorkDirectory, "data-linux-arm64");

        // -L: the arm64 glibc and loader the cross compiler's package installs. No arm64 ICU is installed, so
        // globalization runs invariant (a self-contained app would otherwise stop at start). W^X off: qemu-user
        // runs stale code after .NET rewrites jitted code through W^X's second mapping (dotnet/runtime#94909).
        var run = Tool.Run(qemu, ["-L", "/usr/aarch64-linux-gnu", Path.Combine(output, "Consumer"), data], consumer.Directory,
            TimeSpan.FromMinutes(3), consumer.Environment(("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1"), ("DOTNET_EnableWriteXorExecute", "0")));

        Assert.Contains(Expected, run.Output);
        Assert.Contains("platform linux-arm64, data-file writer Pwritev", run.Output);
    }

    [Fact]
    public void Published_for_win_x64_runs_under_wine()
    {
        string wine = RequireTool("wine", "apt-get install wine wine64");
        using var consumer = new Consumer(packed, Program, ConsumerProperties);
        var output = Publish(consumer, "win-x64");
        var data = Path.Combine(packed.WorkDirectory, "data-win-x64");

        // The native tests' prefix when ctest has made it (tests/native/win_run.cmake), else one of our own.
        string prefix = Path.Combine(packed.RepositoryRoot, "artifacts", "native", "release", "cross", "wineprefix");
        if (!File.Exists(Path.Combine(prefix, "system.reg")))
            prefix = Path.Combine(packed.WorkDirectory, "wineprefix");
        // mscoree must stay enabled (unlike in the native tests): wine's loader needs it to map IL-only
        // assemblies such as System.Runtime.dll, or .NET fails with "Could not load file or assembly".
        var environment = consumer.Environment(("WINEPREFIX", prefix), ("WINEDEBUG", "-all"), ("WINEDLLOVERRIDES", "mshtml="));
        try
        {
            var run = Tool.Run(wine, [Path.Combine(output, "Consumer.exe"), "Z:" + data.Replace('/', '\\')], consumer.Directory,
                TimeSpan.FromMinutes(5), environment);

            Assert.Contains(Expected, run.Output);
            Assert.Contains("platform win-x64, data-file writer Win32", run.Output);
        }
        finally
        {
            Tool.Run("wineserver", ["-k"], consumer.Directory, TimeSpan.FromMinutes(1), environment, check: false);
        }
    }

    private static string Publish(Consumer consumer, string runtime)
    {
        var output = Path.Combine(consumer.Directory, "out", runtime);
        consumer.Dotnet("publish", "-c", "Release", "-r", runtime, "--self-contained", "-o", output);
        var library = PackageTests.NativeFileNames[runtime];
        Assert.True(File.Exists(Path.Combine(output, library)) || File.Exists(Path.Combine(output, "runtimes", runtime, "native", library)),
            $"the {runtime} publish has no {library}");
        return output;
    }

    private static string RequireTool(string name, string installHint)
    {
        foreach (var directory in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            var path = Path.Combine(directory, name);
            if (File.Exists(path))
                return path;
        }
        Assert.Fail($"{name} is not installed; install it: {installHint} (scripts/setup.sh does)");
        return name;
    }
}
