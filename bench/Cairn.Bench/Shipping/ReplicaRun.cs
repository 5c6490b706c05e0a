using System.Diagnostics;
using System.Globalization;

namespace Cairn.Bench.Shipping;

/// <summary>
/// <c>--replica [--rounds N] [--ops N] [--callers N] [--value N]</c>: can a replica keep up with its primary? Each round,
/// <c>callers</c> tasks commit <c>ops</c> puts in all (one random key and a <c>value</c>-byte value each) through the
/// primary's WriteAsync, while a shipping loop on its own thread reads the primary's entries after the replica's position
/// and applies them (the live replica). Reported per round: the primary's commit rate (transactions and operations per
/// second of the commit phase), the live replica's lag (transactions behind, sampled at each pass of the loop: median and
/// maximum) and how long it took to catch up after the last commit; then, interleaved with the commit phases, a second
/// replica applies the same round's entries alone with <c>Apply</c> (one journal write per entry), and a third with
/// <c>ApplyBatch</c> (one write for all), nothing else running: their apply rates and their ratios to the commit rate on
/// the same disk in the same run. The live replica uses ApplyBatch with whatever each pass of its loop finds.
/// </summary>
public static class ReplicaRun
{
    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        int rounds = Option(args, "--rounds", 5), ops = Option(args, "--ops", 40_000), callers = Option(args, "--callers", 16),
            valueSize = Option(args, "--value", 100);
        string directory = BenchScratch.Directory("replica");
        output.WriteLine($"# replica apply vs primary commit: {callers} WriteAsync callers, {ops} puts of {valueSize} B per round, {rounds} rounds " +
            $"(+1 warm-up); {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; {directory}");
        try
        {
            string primaryPath = Path.Combine(directory, "primary"), livePath = Path.Combine(directory, "live"), alonePath = Path.Combine(directory, "alone"),
                batchedPath = Path.Combine(directory, "batched");
            using (var seed = StorageEnvironment.Open(new StorageOptions(primaryPath)))
            {
                using var tx = seed.BeginWrite();
                tx.CreateTree("t").Put("seed"u8, "seed"u8);
                tx.Commit();
            }
            Copy(primaryPath, livePath);
            Copy(primaryPath, alonePath);
            Copy(primaryPath, batchedPath);
            using var primary = StorageEnvironment.Open(new StorageOptions(primaryPath) { JournalRetentionBytes = 4L << 30 });
            using var live = ReplicaEnvironment.Open(new ReplicaOptions(livePath));
            using var alone = ReplicaEnvironment.Open(new ReplicaOptions(alonePath));
            using var batched = ReplicaEnvironment.Open(new ReplicaOptions(batchedPath));
            output.WriteLine("round | txs | primary tx/s | primary ops/s | live lag median / max (txs) | catch-up ms | Apply tx/s | Apply / commit | ApplyBatch tx/s | ApplyBatch / commit");
            output.WriteLine("--- | --- | --- | --- | --- | --- | --- | --- | --- | ---");
            var ratios = new List<double>();
            var batchRatios = new List<double>();
            for (int round = 0; round <= rounds; round++)
            {
                var r = RunRound(primary, live, alone, batched, ops, callers, valueSize, round);
                if (round == 0)
                    continue; // warm-up: JIT tiering, first journal files
                ratios.Add(r.ApplyRate / r.CommitRate);
                batchRatios.Add(r.BatchRate / r.CommitRate);
                output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"{round} | {r.Transactions} | {r.CommitRate:F0} | {r.OpsRate:F0} | {r.LagMedian} / {r.LagMax} | {r.CatchUpMs:F1} | {r.ApplyRate:F0} | {r.ApplyRate / r.CommitRate:F2} | {r.BatchRate:F0} | {r.BatchRate / r.CommitRate:F2}"));
            }
            ratios.Sort();
            batchRatios.Sort();
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"# median Apply/commit {ratios[ratios.Count / 2]:F2} (min {ratios[0]:F2}); median ApplyBatch/commit {batchRatios[batchRatios.Count / 2]:F2} " +
                $"(min {batchRatios[0]:F2}); live replica equals primary: {Same(primary, live)}; uptime load: {File.ReadAllText("/proc/loadavg").Trim()}"));
            return 0;
        }
        finally
        {
            try
            {
                Directory.Delete(directory, recursive: true);
            }
            catch (IOException)
            {
            }
        }
    }

    private readonly record struct RoundResult(long Transactions, double CommitRate, double OpsRate, long LagMedian, long LagMax, double CatchUpMs,
        double ApplyRate, double BatchRate);

    private static RoundResult RunRound(StorageEnvironment primary, ReplicaEnvironment live, ReplicaEnvironment alone, ReplicaEnvironment batched, int ops, int callers, int valueSize, int round)
    {
        long first = primary.LastCommittedTransactionId;
        var lags = new List<long>();
        var stop = new ManualResetEventSlim();
        long caughtUpAt = 0;
        var shipper = new Thread(() =>
        {
            long shipped = live.LastAppliedTransactionId;
            while (true)
            {
                bool last = stop.IsSet;
                long target = primary.LastCommittedTransactionId;
                lags.Add(target - shipped);
                var entries = primary.ReadJournalEntries(shipped).ToList();
                if (entries.Count > 0)
                {
                    live.ApplyBatch(entries);
                    shipped = entries[^1].TransactionId;
                }
                if (last && shipped == primary.LastCommittedTransactionId)
                {
                    caughtUpAt = Stopwatch.GetTimestamp();
                    return;
                }
                if (shipped == target)
                    Thread.Yield();
            }
        }) { IsBackground = true };
        shipper.Start();

        var value = new byte[valueSize];
        Random.Shared.NextBytes(value);
        long started = Stopwatch.GetTimestamp();
        var tasks = Enumerable.Range(0, callers).Select(c => Task.Run(async () =>
        {
            var random = new Random(round * 1000 + c);
            for (int i = 0; i < ops / callers; i++)
            {
                long key = random.NextInt64();
                await primary.WriteAsync(key, (tx, k) =>
                {
                    Span<byte> bytes = stackalloc byte[8];
                    BitConverter.TryWriteBytes(bytes, k);
                    tx.CreateTree("t").Put(bytes, value);
                });
            }
        })).ToArray();
        Task.WaitAll(tasks);
        long committed = Stopwatch.GetTimestamp();
        stop.Set();
        shipper.Join();
        long transactions = primary.LastCommittedTransactionId - first;
        double commitSeconds = Stopwatch.GetElapsedTime(started, committed).TotalSeconds;

        var entries = primary.ReadJournalEntries(alone.LastAppliedTransactionId).ToList();
        long applyStart = Stopwatch.GetTimestamp();
        foreach (var entry in entries)
            alone.Apply(entry);
        double applySeconds = Stopwatch.GetElapsedTime(applyStart).TotalSeconds;
        long batchStart = Stopwatch.GetTimestamp();
        batched.ApplyBatch(entries);
        double batchSeconds = Stopwatch.GetElapsedTime(batchStart).TotalSeconds;
        primary.AcknowledgeShipped(Math.Min(live.LastAppliedTransactionId, alone.LastAppliedTransactionId));

        lags.Sort();
        return new RoundResult(transactions, transactions / commitSeconds, (ops / callers * callers) / commitSeconds,
            lags.Count > 0 ? lags[lags.Count / 2] : 0, lags.Count > 0 ? lags[^1] : 0,
            Stopwatch.GetElapsedTime(committed, caughtUpAt).TotalMilliseconds, entries.Count / applySeconds, entries.Count / batchSeconds);
    }

    private static bool Same(StorageEnvironment a, ReplicaEnvironment b)
    {
        using var ta = a.BeginRead();
        using var tb = b.BeginRead();
        using var ca = ta.OpenTree("t").CreateCursor();
        using var cb = tb.OpenTree("t").CreateCursor();
        bool ma = ca.SeekFirst(), mb = cb.SeekFirst();
        for (; ma && mb; ma = ca.MoveNext(), mb = cb.MoveNext())
            if (!ca.Key.SequenceEqual(cb.Key) || !ca.Value.SequenceEqual(cb.Value))
                return false;
        return ma == mb;
    }

    private static void Copy(string source, string destination)
    {
        Directory.CreateDirectory(Path.Combine(destination, "Journals"));
        File.Copy(Path.Combine(source, StorageEnvironment.DataFileName), Path.Combine(destination, StorageEnvironment.DataFileName));
        foreach (var journal in Directory.EnumerateFiles(Path.Combine(source, "Journals")))
            File.Copy(journal, Path.Combine(destination, "Journals", Path.GetFileName(journal)));
    }

    private static int Option(IReadOnlyList<string> args, string name, int fallback)
    {
        for (int i = 0; i + 1 < args.Count; i++)
            if (args[i] == name)
                return int.Parse(args[i + 1], CultureInfo.InvariantCulture);
        return fallback;
    }
}
