namespace Cairn.Bench;

/// <summary>Benchmark files live in the repository's ignored .scratch folder, on the real disk.</summary>
public static class BenchScratch
{
    public static string Directory(string name)
    {
        var root = Environment.GetEnvironmentVariable("CAIRN_BENCH_DIR") ?? Path.Combine(RepositoryRoot(), ".scratch", "bench");
        var path = Path.Combine(root, $"{name}-{Environment.ProcessId}");
        System.IO.Directory.CreateDirectory(path);
        return path;
    }

    private static string RepositoryRoot()
    {
        // BenchmarkDotNet runs the benchmarks from a generated project deep under bin/, so walk up.
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Storage.sln")))
                return dir.FullName;
        }
        throw new InvalidOperationException("Run the benchmarks from inside the repository, or set CAIRN_BENCH_DIR to a directory on a real disk.");
    }
}
