using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Fill;

/// <summary>
/// <c>--fill-interleaved</c>: fills an empty store with every key, Cairn against LMDB, in alternating order
/// round by round, each fill in a fresh directory. Lazy mode sets Cairn's lazy commits against LMDB's
/// MDB_NOSYNC; durable mode, durable commits against LMDB's synced ones. For each fill: the rate of the fill
/// itself, the rate including the close and a global sync (what the disk had to take), the size on disk
/// after the close (allocated bytes), and the bytes the device wrote from the open to after the sync.
/// The append order loads the sequential keys through each store's append path: LMDB's MDB_APPEND against
/// Cairn's <see cref="Tree.Append"/>.
/// </summary>
public static class FillRun
{
    private static readonly string[] s_stores = ["lmdb", "cairn"];

    [DllImport("libc", EntryPoint = "sync")]
    private static extern void SyncAll();

    private sealed record Fill(string Store, string Mode, string Order, int Round, double Seconds, double SecondsWithSync, long SizeOnDisk, long DeviceBytes,
        long AllocatedBytes, long JournalBytes, long FlushedBytes, long Flushes, long Syncs, long? ProcessBytes, string? Shape);

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var options = FillRunOptions.Parse(args);
        var sequential = KeyGenerator.Sequential(options.Keys);
        var keys = new Dictionary<string, KeySet>
        {
            ["sequential"] = sequential,
            ["append"] = sequential,
        };
        if (options.Orders.Contains("random"))
            keys["random"] = KeyGenerator.Shuffled(options.Keys, KeyGenerator.FillSeed);
        string root = BenchScratch.Directory("fill-interleaved");
        var device = DeviceWrites.For(root);
        output.WriteLine($"fill-interleaved: {options.Keys:N0} keys of {KeySet.KeySize} B, values of {BenchValues.ValueSize} B, {options.BatchSize:N0} puts per transaction, " +
            $"{options.Rounds} round(s); device {device?.Device ?? "unknown (no device bytes)"}; load {File.ReadAllText("/proc/loadavg").Trim()}");
        var fills = new List<Fill>();
        try
        {
            for (int round = 1; round <= options.Rounds; round++)
            {
                foreach (var mode in options.Modes)
                {
                    foreach (var order in options.Orders)
                    {
                        var stores = round % 2 == 1 ? s_stores : s_stores.Reverse().ToArray();
                        foreach (var store in stores)
                        {
                            var fill = FillOnce(store, mode, order, round, keys[order], options.BatchSize, Path.Combine(root, $"{store}-{mode}-{order}"), device);
                            fills.Add(fill);
                            output.WriteLine($"  round {round} {mode,-7} {order,-10} {store,-5} {options.Keys / fill.Seconds,12:N0} puts/s  " +
                                $"(with close+sync {options.Keys / fill.SecondsWithSync,10:N0})  size {Mib(fill.SizeOnDisk),8:N1} MiB  device {Mib(fill.DeviceBytes),9:N1} MiB  " +
                                $"allocated {fill.AllocatedBytes / (double)options.Keys,6:F1} B/put  process writes {(fill.ProcessBytes is { } p ? $"{Mib(p),9:N1} MiB" : "unknown")}" +
                                (store == "cairn" ? $"  (journal {Mib(fill.JournalBytes):N1} MiB = {fill.JournalBytes / (double)options.Keys:F0} B/key, flushed {Mib(fill.FlushedBytes):N1} MiB in {fill.Flushes} flushes, {fill.Syncs} syncs; {fill.Shape})" : ""));
                        }
                    }
                }
            }
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
        Summarize(fills, options, output);
        return 0;
    }

    private static Fill FillOnce(string store, string mode, string order, int round, KeySet keys, int batchSize, string directory, DeviceWrites? device)
    {
        if (Directory.Exists(directory))
            Directory.Delete(directory, recursive: true);
        Directory.CreateDirectory(directory);
        SyncAll(); // what earlier fills left dirty is not counted against this one
        long before = device?.BytesWritten() ?? 0;
        long? processBefore = ProcessWrites.Bytes();
        var clock = Stopwatch.StartNew();
        double seconds;
        using var tally = new CairnWriteTally();
        long allocated;
        string? shape;
        using (var opened = BenchStores.Create(store))
        {
            opened.Open(directory, durable: mode == "durable");
            // Managed bytes allocated by every thread during the fill (the engine's background threads too).
            long allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
            clock.Restart();
            if (order == "append")
                ((IAppendingStore)opened).AppendBatches(keys, batchSize);
            else
                opened.FillBatches(keys, batchSize);
            seconds = clock.Elapsed.TotalSeconds;
            allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
            shape = (opened as Cairn.Bench.KeyValue.Stores.CairnStore)?.DescribeTree();
        }
        SyncAll();
        double withSync = clock.Elapsed.TotalSeconds;
        long deviceBytes = device is null ? 0 : device.BytesWritten() - before;
        long? processBytes = ProcessWrites.Bytes() - processBefore;
        long size = AllocatedBytes(directory);
        Directory.Delete(directory, recursive: true);
        return new Fill(store, mode, order, round, seconds, withSync, size, deviceBytes, allocated, tally.JournalBytes, tally.FlushedBytes, tally.Flushes, tally.Syncs, processBytes, shape);
    }

    /// <summary>Allocated bytes of every file under the directory (du), not their apparent sizes: a sparse or preallocated file counts as the disk holds it.</summary>
    private static long AllocatedBytes(string directory)
    {
        using var du = Process.Start(new ProcessStartInfo("du", ["-s", "--block-size=1", directory]) { RedirectStandardOutput = true })!;
        string text = du.StandardOutput.ReadToEnd();
        du.WaitForExit();
        return long.Parse(text.Split('\t')[0], System.Globalization.CultureInfo.InvariantCulture);
    }

    private static void Summarize(List<Fill> fills, FillRunOptions options, TextWriter output)
    {
        output.WriteLine();
        output.WriteLine("| mode | order | Cairn puts/s | LMDB puts/s | Cairn / LMDB (median of rounds) | with close+sync | size Cairn / LMDB | device bytes Cairn / LMDB | process writes Cairn / LMDB | Cairn allocated per put |");
        output.WriteLine("|---|---|---|---|---|---|---|---|---|---|");
        foreach (var mode in options.Modes)
        {
            foreach (var order in options.Orders)
            {
                var cairn = fills.Where(f => f.Store == "cairn" && f.Mode == mode && f.Order == order).OrderBy(f => f.Round).ToArray();
                var lmdb = fills.Where(f => f.Store == "lmdb" && f.Mode == mode && f.Order == order).OrderBy(f => f.Round).ToArray();
                double ratio = Median(cairn.Zip(lmdb, (c, l) => l.Seconds / c.Seconds));
                double ratioWithSync = Median(cairn.Zip(lmdb, (c, l) => l.SecondsWithSync / c.SecondsWithSync));
                output.WriteLine($"| {mode} | {order} | {options.Keys / Median(cairn.Select(f => f.Seconds)):N0} | {options.Keys / Median(lmdb.Select(f => f.Seconds)):N0} | " +
                    $"{ratio:F2}× | {ratioWithSync:F2}× | {Mib((long)Median(cairn.Select(f => (double)f.SizeOnDisk))):N0} / {Mib((long)Median(lmdb.Select(f => (double)f.SizeOnDisk))):N0} MiB | " +
                    $"{Mib((long)Median(cairn.Select(f => (double)f.DeviceBytes))):N0} / {Mib((long)Median(lmdb.Select(f => (double)f.DeviceBytes))):N0} MiB | " +
                    $"{Mib((long)Median(cairn.Select(f => (double)(f.ProcessBytes ?? 0)))):N0} / {Mib((long)Median(lmdb.Select(f => (double)(f.ProcessBytes ?? 0)))):N0} MiB | " +
                    $"{Median(cairn.Select(f => (double)f.AllocatedBytes)) / options.Keys:F1} B |");
            }
        }
    }

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.OrderBy(v => v).ToArray();
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static double Mib(long bytes) => bytes / (1024.0 * 1024.0);
}
