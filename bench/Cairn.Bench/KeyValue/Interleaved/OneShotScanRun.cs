using System.Diagnostics;
using System.Globalization;

namespace Cairn.Bench.KeyValue.Interleaved;

/// <summary>
/// <c>--reads-oneshot</c>: the full scan as an outside comparison meets it, once, in a fresh process that has just
/// filled the store and read every key once, so the scan runs on whatever code the JIT has by then (no warm-up
/// rounds, unlike <see cref="InterleavedReadRun"/>). Each store runs in its own child process, the stores alternating
/// round by round (A B, B A, ...); each round's ratio is the baseline's ns per key over the store's, with the load
/// average beside it, and the median of the rounds is reported. <c>--jit tc-off</c> runs the children with tiered
/// compilation off (every method fully optimised at its first call), to tell JIT tiers from everything else.
/// </summary>
public static class OneShotScanRun
{
    public static int Run(string[] args, TextWriter output)
    {
        int keys = 1_000_000, rounds = 4;
        string[] stores = ["lmdb", "cairn"];
        string jit = "default";
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--keys": keys = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--rounds": rounds = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--stores": stores = args[i + 1].Split(','); break;
                case "--jit": jit = args[i + 1]; break;
                default: throw new ArgumentException($"unknown option {args[i]}; known: --keys N, --rounds N, --stores a,b,..., --jit default|tc-off");
            }
        }
        if (jit is not ("default" or "tc-off"))
            throw new ArgumentException($"--jit {jit}: expected default or tc-off");

        output.WriteLine($"{keys:N0} keys, {rounds} rounds, one fresh process per store and round (fill, read each key once, one timed scan); jit {jit}");
        output.WriteLine();
        output.WriteLine($"| round | {string.Join(" | ", stores.Select(s => s + " scan ns/key"))} | {string.Join(" | ", stores.Skip(1).Select(s => s + " ratio to " + stores[0]))} | load (1 min) |");
        output.WriteLine($"|{string.Concat(Enumerable.Repeat(" --- |", 2 * stores.Length + 1))}");
        var perStore = stores.ToDictionary(s => s, _ => new List<double>());
        for (int round = 0; round < rounds; round++)
        {
            var order = round % 2 == 0 ? stores : stores.Reverse().ToArray();
            foreach (string store in order)
                perStore[store].Add(RunChild(store, keys, jit));
            var figures = stores.Select(s => perStore[s][round]).ToArray();
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {round + 1} | {string.Join(" | ", figures.Select(f => f.ToString("F1", CultureInfo.InvariantCulture)))} | " +
                $"{string.Join(" | ", figures.Skip(1).Select(f => (figures[0] / f).ToString("F2", CultureInfo.InvariantCulture)))} | " +
                $"{File.ReadAllText("/proc/loadavg").Split(' ')[0]} |"));
        }
        output.WriteLine();
        foreach (string store in stores.Skip(1))
        {
            var ratios = perStore[stores[0]].Zip(perStore[store], (b, s) => b / s).Order().ToArray();
            double median = ratios.Length % 2 == 1 ? ratios[ratios.Length / 2] : (ratios[ratios.Length / 2 - 1] + ratios[ratios.Length / 2]) / 2;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{store}: median ratio to {stores[0]} {median:F2} (above 1: faster)"));
        }
        return 0;
    }

    /// <summary>The child: fill, read every key once in its own transaction, then one timed full scan; prints ns per key.</summary>
    public static int RunChild(string[] args, TextWriter output)
    {
        string store = args[0];
        int keys = int.Parse(args[1], CultureInfo.InvariantCulture);
        using var prepared = PreparedStore.Create(store, keys);
        var readOrder = KeyGenerator.Shuffled(keys, KeyGenerator.ReadSeed);
        using var reader = prepared.Store.CreateReader();
        int found = PointReadWorker.ReadEachInOwnTransaction(reader, readOrder, 0, keys);
        long started = Stopwatch.GetTimestamp();
        var totals = reader.ScanAll();
        double nanoseconds = Stopwatch.GetElapsedTime(started).TotalNanoseconds;
        if (found != keys || totals.Items != keys)
            throw new InvalidOperationException($"{store}: {found} keys found of {keys}, scan saw {totals.Items}");
        output.WriteLine((nanoseconds / totals.Items).ToString("R", CultureInfo.InvariantCulture));
        return 0;
    }

    private static double RunChild(string store, int keys, string jit)
    {
        string self = Environment.ProcessPath!;
        var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
        if (Path.GetFileNameWithoutExtension(self) == "dotnet")
            start.ArgumentList.Add(typeof(OneShotScanRun).Assembly.Location);
        foreach (string argument in new[] { "--reads-oneshot-child", store, keys.ToString(CultureInfo.InvariantCulture) })
            start.ArgumentList.Add(argument);
        if (jit == "tc-off")
            start.Environment["DOTNET_TieredCompilation"] = "0";
        using var child = Process.Start(start)!;
        string line = child.StandardOutput.ReadToEnd().Trim();
        child.WaitForExit();
        if (child.ExitCode != 0 || !double.TryParse(line, NumberStyles.Float, CultureInfo.InvariantCulture, out double nsPerKey))
            throw new InvalidOperationException($"{store} child failed (exit {child.ExitCode}): {line}");
        return nsPerKey;
    }
}
