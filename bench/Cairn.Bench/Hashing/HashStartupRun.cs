using System.Diagnostics;
using System.Globalization;
using Cairn.Hashing;
using Cairn.Paging;

namespace Cairn.Bench.Hashing;

/// <summary>
/// <c>--hash-startup</c> (not BenchmarkDotNet): what checksumming an 8 KiB page costs in a young process.
/// System.IO.Hashing ships IL only (no ReadyToRun code), so its hash runs as tier-0 code until tiered
/// compilation replaces it; Cairn's own XXH3 (<see cref="Xxh3"/>) is <c>AggressiveOptimization</c>.
/// Each case runs in a fresh child process (this program, <c>--hash-startup --child CASE</c>) that hashes
/// pages for 2 s and prints the mean per page within successive windows since its first hash.
/// </summary>
public static class HashStartupRun
{
    private static readonly double[] s_windowEnds = [0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0];

    private static readonly (string Name, string Hash, string? QuickJitForLoops)[] s_cases =
    [
        ("Cairn Checksums (its own XXH3)", "cairn", null),
        ("System.IO.Hashing XxHash3", "xxhash3", null),
        ("System.IO.Hashing XxHash3, DOTNET_TC_QuickJitForLoops=0", "xxhash3", "0"),
        ("System.IO.Hashing XxHash64", "xxhash64", null),
    ];

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        if (args is ["--child", var childHash])
            return Child(childHash, output);
        if (args.Count > 0)
        {
            output.WriteLine("usage: --hash-startup");
            return 2;
        }
        output.WriteLine("Mean ns per 8 KiB page checksum in a fresh process, window by window since the first hash:");
        output.WriteLine();
        output.WriteLine("| case | " + string.Join(" | ", s_windowEnds.Select(end => $"to {end * 1000:0} ms")) + " |");
        output.WriteLine("|---|" + string.Concat(s_windowEnds.Select(_ => "---|")));
        foreach (var (name, hash, quickJitForLoops) in s_cases)
            output.WriteLine($"| {name} | {RunChild(hash, quickJitForLoops)} |");
        return 0;
    }

    private static string RunChild(string hash, string? quickJitForLoops)
    {
        string self = Environment.ProcessPath!;
        var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
        if (Path.GetFileNameWithoutExtension(self) == "dotnet")
            start.ArgumentList.Add(typeof(HashStartupRun).Assembly.Location);
        foreach (string argument in new[] { "--hash-startup", "--child", hash })
            start.ArgumentList.Add(argument);
        if (quickJitForLoops is not null)
            start.Environment["DOTNET_TC_QuickJitForLoops"] = quickJitForLoops;
        using var child = Process.Start(start)!;
        string line = child.StandardOutput.ReadToEnd().Trim();
        child.WaitForExit();
        return child.ExitCode == 0 ? line : $"child failed ({child.ExitCode}): {line}";
    }

    /// <summary>Hashes one page over and over (a new seed each time) and prints the windows' means as one table row's cells.</summary>
    private static int Child(string hash, TextWriter output)
    {
        byte[] page = new byte[StorageConstants.PageSize];
        new Random(1).NextBytes(page);
        ulong sink = 0;
        long calls = 0, windowStartCalls = 0;
        double windowStart = 0;
        var cells = new List<string>();
        var clock = Stopwatch.StartNew();
        while (cells.Count < s_windowEnds.Length)
        {
            for (int i = 0; i < 16; i++, calls++)
            {
                sink ^= hash switch
                {
                    "cairn" => Checksums.Compute(page, (ulong)calls),
                    "xxhash3" => System.IO.Hashing.XxHash3.HashToUInt64(page, calls),
                    _ => System.IO.Hashing.XxHash64.HashToUInt64(page, calls),
                };
            }
            double now = clock.Elapsed.TotalSeconds;
            if (now < s_windowEnds[cells.Count])
                continue;
            cells.Add(((now - windowStart) * 1e9 / (calls - windowStartCalls)).ToString("N0", CultureInfo.InvariantCulture));
            windowStart = now;
            windowStartCalls = calls;
        }
        GC.KeepAlive(sink);
        output.WriteLine(string.Join(" | ", cells));
        return 0;
    }
}
