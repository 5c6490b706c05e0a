using System.Globalization;

namespace Cairn.Bench.Durability.Interleaved;

/// <summary>
/// <c>--concurrent-interleaved</c>: the concurrent durable-commit comparison with every case (store ×
/// caller count) open at once and measured round by round in turn, the order rotating each round, so
/// the disk's slow and fast phases, which on a shared VM last seconds to minutes, fall on every case
/// alike. The BenchmarkDotNet suite (<see cref="ConcurrentCommitBenchmarks"/>) measures one case after
/// another, minutes apart, and its ratios move with the disk; these move far less. Same callers, keys and
/// values as that suite; every case warms up first (all of them in turn, at least once each and for at
/// least <see cref="InterleavedOptions.WarmUp"/>, so JIT tiering is over). Per case: the rate over all measured rounds, the median round's, p50/p99 put
/// latency and puts per durable log write, and ratios against the baseline stores at the same caller
/// count and against the store's own 1-caller rate.
/// </summary>
public static class InterleavedConcurrentRun
{
    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var options = InterleavedOptions.Parse(args);
        output.WriteLine($"# concurrent durable commits, cases interleaved round by round: {options.Rounds} measured rounds of about " +
            $"{options.CommitsPerRound} commits per case after at least {options.WarmUp.TotalSeconds} s of warm-up; {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC");
        var cases = new List<InterleavedCase>();
        try
        {
            foreach (var callers in options.Callers)
            {
                foreach (var store in options.Stores)
                    cases.Add(InterleavedCase.Open(store, callers, Math.Max(1, options.CommitsPerRound / callers)));
            }
            // Warm-up (JIT tiering, stores' first files): all cases in turn until the time has passed.
            var warmUp = System.Diagnostics.Stopwatch.StartNew();
            int warmUpPasses = 0;
            do
            {
                foreach (var c in cases)
                    c.RunRound(measured: false);
                warmUpPasses++;
            }
            while (warmUp.Elapsed < options.WarmUp);
            output.WriteLine($"# warm-up: {warmUpPasses} unmeasured round(s) of every case in {warmUp.Elapsed.TotalSeconds:F1} s");
            for (int round = 0; round < options.Rounds; round++)
            {
                for (int k = 0; k < cases.Count; k++)
                    cases[(round + k) % cases.Count].RunRound(measured: true);
            }
            Report(options, cases, output);
        }
        finally
        {
            foreach (var c in cases)
                c.Dispose();
        }
        return 0;
    }

    private static void Report(InterleavedOptions options, List<InterleavedCase> cases, TextWriter output)
    {
        var baselines = options.Baselines.Where(options.Stores.Contains).ToArray();
        var header = $"{"callers",7} {"store",-20} {"commits/s",10} {"median/s",10}";
        foreach (var baseline in baselines)
            header += $" {"/" + baseline,9}";
        header += $" {"/self1",7} {"p50 us",9} {"p99 us",9} {"puts/write",10} {"B/put",7} {"B/write",8} {"cs/put",7}";
        output.WriteLine();
        output.WriteLine(header);
        foreach (var c in cases)
        {
            var line = string.Create(CultureInfo.InvariantCulture, $"{c.CallerCount,7} {c.Name,-20} {c.TotalRate,10:F0} {c.MedianRate,10:F0}");
            foreach (var baseline in baselines)
                line += string.Create(CultureInfo.InvariantCulture, $" {c.TotalRate / Find(cases, baseline, c.CallerCount).TotalRate,9:F2}");
            var single = cases.FirstOrDefault(o => o.Name == c.Name && o.CallerCount == 1);
            line += single is null ? $" {"-",7}" : string.Create(CultureInfo.InvariantCulture, $" {c.TotalRate / single.TotalRate,7:F2}");
            var percentiles = c.Callers.LatencyPercentiles([50, 99]);
            string perWrite = c.LogWrites < 0 ? "-" : ((double)c.MeasuredPuts / Math.Max(1, c.LogWrites)).ToString("F2", CultureInfo.InvariantCulture);
            string perPut = (c.AllocatedBytes / (double)Math.Max(1, c.MeasuredPuts)).ToString("F0", CultureInfo.InvariantCulture);
            string bytesPerWrite = c.LogWrites <= 0 ? "-" : (c.AllocatedBytes / (double)c.LogWrites).ToString("F0", CultureInfo.InvariantCulture);
            string switchesPerPut = c.ContextSwitches < 0 ? "-" : (c.ContextSwitches / (double)Math.Max(1, c.MeasuredPuts)).ToString("F2", CultureInfo.InvariantCulture);
            line += string.Create(CultureInfo.InvariantCulture, $" {percentiles[0],9:F1} {percentiles[1],9:F1} {perWrite,10} {perPut,7} {bytesPerWrite,8} {switchesPerPut,7}");
            output.WriteLine(line);
        }
        output.WriteLine();
        output.WriteLine("commits/s: all callers' commits over the time of the case's measured rounds; median/s: its median round's rate;");
        output.WriteLine("/store: commits/s over that store's at the same caller count; /self1: over the same store's with 1 caller;");
        output.WriteLine("puts/write: puts per durable log write (rocksdb: WAL syncs, cairn: journal writes; '-': every commit is its own sync);");
        output.WriteLine("B/put, B/write: bytes the whole process allocated in the case's measured rounds (only that case runs then), per put and per log write;");
        output.WriteLine("cs/put: context switches of the whole process (getrusage, voluntary + involuntary, every thread) in those rounds, per put.");
    }

    private static InterleavedCase Find(List<InterleavedCase> cases, string store, int callers)
        => cases.First(c => c.Name == store && c.CallerCount == callers);
}
