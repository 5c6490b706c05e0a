using System.Diagnostics;
using System.Globalization;

namespace Cairn.Bench.KeyValue.Interleaved;

/// <summary>
/// <c>--reads-interleaved</c>: point reads in their own transaction (1 and 2 threads) and full scans, every store
/// open at once and measured in alternating rounds, so a minute in which the shared machine is busier falls on
/// every store alike (BenchmarkDotNet measures one store after another). Each round's figure is divided by the
/// baseline's in the same round; the medians of those ratios are reported, with ns per read and bytes allocated
/// per read transaction on the measuring thread.
/// </summary>
public static class InterleavedReadRun
{
    public static int Run(string[] args, TextWriter output)
    {
        int keys = 1_000_000, rounds = 8, readsPerRound = 1 << 18;
        string[] stores = ["lmdb", "cairn", "cairn-byname", "cairn-readtx"];
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--keys": keys = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--rounds": rounds = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--reads": readsPerRound = int.Parse(args[i + 1], CultureInfo.InvariantCulture); break;
                case "--stores": stores = args[i + 1].Split(','); break;
                default: throw new ArgumentException($"unknown option {args[i]}; known: --keys N, --rounds N, --reads N, --stores a,b,...");
            }
        }
        var readOrder = KeyGenerator.Shuffled(keys, KeyGenerator.ReadSeed);
        var cases = stores.Select(name => new Case(name, PreparedStore.Create(name, keys), readOrder)).ToArray();
        try
        {
            output.WriteLine($"{keys:N0} keys, {rounds} rounds of {readsPerRound:N0} reads per store and mode, then one full scan; " +
                $"load at start: {File.ReadAllText("/proc/loadavg").Trim()}");
            foreach (var c in cases)
                c.Measure(readsPerRound / 4, warmUp: true);
            for (int round = 0; round < rounds; round++)
            {
                // Alternate the order too, so no store always runs right after the same one.
                var order = round % 2 == 0 ? cases : cases.Reverse().ToArray();
                foreach (var c in order)
                    c.Measure(readsPerRound, warmUp: false);
            }
            output.WriteLine($"load at end: {File.ReadAllText("/proc/loadavg").Trim()}");
            Report(cases, output);
            return 0;
        }
        finally
        {
            foreach (var c in cases)
                c.Dispose();
        }
    }

    private static void Report(Case[] cases, TextWriter output)
    {
        var baseline = cases[0];
        output.WriteLine();
        output.WriteLine($"| store | read, own txn, 1 thread | read, own txn, 2 threads | scan all (ns/key) | B per read txn | ratio to {baseline.Name} (1 thr / 2 thr / scan, median of rounds) |");
        output.WriteLine("| --- | --- | --- | --- | --- | --- |");
        foreach (var c in cases)
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {c.Name} | {Median(c.OneThread):F0} ns | {Median(c.TwoThreads):F0} ns | {Median(c.Scan):F1} | {c.BytesPerRead:F1} | " +
                $"{RatioMedian(baseline.OneThread, c.OneThread):F2} / {RatioMedian(baseline.TwoThreads, c.TwoThreads):F2} / {RatioMedian(baseline.Scan, c.Scan):F2} |"));
        }
        output.WriteLine();
        output.WriteLine("Ratios are the baseline's time over the store's, round by round (above 1: the store is faster).");
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static double RatioMedian(List<double> baseline, List<double> store)
        => Median(baseline.Zip(store, (b, s) => b / s).ToList());

    private sealed class Case : IDisposable
    {
        private readonly PreparedStore _prepared;
        private readonly KeySet _keys;
        private readonly IBenchReader _reader;
        private readonly PointReadWorker _worker;
        private int _next;
        private long _allocated, _reads;

        public Case(string name, PreparedStore prepared, KeySet keys)
        {
            Name = name;
            _prepared = prepared;
            _keys = keys;
            _reader = prepared.Store.CreateReader();
            _worker = new PointReadWorker(prepared.Store, keys);
        }

        public string Name { get; }

        public List<double> OneThread { get; } = [];

        public List<double> TwoThreads { get; } = [];

        public List<double> Scan { get; } = [];

        public double BytesPerRead => _reads == 0 ? 0 : (double)_allocated / _reads;

        public void Measure(int reads, bool warmUp)
        {
            long allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
            long started = Stopwatch.GetTimestamp();
            int found = PointReadWorker.ReadEachInOwnTransaction(_reader, _keys, _next, reads);
            double oneThread = Stopwatch.GetElapsedTime(started).TotalNanoseconds / reads;
            long allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
            Advance(reads);

            int half = reads / 2;
            started = Stopwatch.GetTimestamp();
            _worker.Start((_next + half) % _keys.Count, half);
            found += PointReadWorker.ReadEachInOwnTransaction(_reader, _keys, _next, half);
            found += _worker.Finish();
            double twoThreads = Stopwatch.GetElapsedTime(started).TotalNanoseconds / (2 * half);
            Advance(reads);

            started = Stopwatch.GetTimestamp();
            var totals = _reader.ScanAll();
            double scan = Stopwatch.GetElapsedTime(started).TotalNanoseconds / totals.Items;
            if (found != reads + 2 * half || totals.Items != _keys.Count)
                throw new InvalidOperationException($"{Name}: {found} keys found of {reads + 2 * half}, scan saw {totals.Items} of {_keys.Count}");
            if (warmUp)
                return;
            OneThread.Add(oneThread);
            TwoThreads.Add(twoThreads);
            Scan.Add(scan);
            _allocated += allocated;
            _reads += reads;
        }

        private void Advance(int reads) => _next = (int)((_next + (long)reads) % _keys.Count);

        public void Dispose()
        {
            _worker.Dispose();
            _reader.Dispose();
            _prepared.Dispose();
        }
    }
}
