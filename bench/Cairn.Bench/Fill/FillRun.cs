using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Fill;

/// <summary>
/// <c>--fill-interleaved</c>: fills an empty store with every key, Cairn against LMDB (and RocksDB with
/// <c>--stores lmdb,cairn,rocksdb</c>), the stores' order rotating round by round, each fill in a fresh directory,
/// a sample of keys read back before the close. Lazy mode sets Cairn's lazy commits against LMDB's
/// MDB_NOSYNC; durable mode, durable commits against LMDB's synced ones. For each fill: the rate of the fill
/// itself, the rate including the close and a global sync (what the disk had to take), the size on disk
/// after the close (allocated bytes), and the bytes the device wrote from the open to after the sync.
/// The append order loads the sequential keys through each store's append path: LMDB's MDB_APPEND against
/// Cairn's <see cref="Tree.Append"/>; RocksDB, which has none, sits that order out.
/// </summary>
public static class FillRun
{
    // Keys read back after each fill: enough to catch a store that dropped or garbled a batch, few enough not to matter.
    private const int CheckedKeys = 1_000;

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
                        foreach (var store in Rotated(options.Stores, round))
                        {
                            if (order == "append" && !FillStores.CanAppend(store))
                                continue;
                            var fill = FillOnce(store, mode, order, round, keys[order], options.BatchSize, Path.Combine(root, $"{store}-{mode}-{order}"), device);
                            fills.Add(fill);
                            output.WriteLine($"  round {round} {mode,-7} {order,-10} {store,-7} {options.Keys / fill.Seconds,12:N0} puts/s  " +
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
        using (var opened = FillStores.Create(store))
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
            CheckSample(opened, keys, store);
        }
        SyncAll();
        double withSync = clock.Elapsed.TotalSeconds;
        long deviceBytes = device is null ? 0 : device.BytesWritten() - before;
        long? processBytes = ProcessWrites.Bytes() - processBefore;
        long size = AllocatedBytes(directory);
        Directory.Delete(directory, recursive: true);
        return new Fill(store, mode, order, round, seconds, withSync, size, deviceBytes, allocated, tally.JournalBytes, tally.FlushedBytes, tally.Flushes, tally.Syncs, processBytes, shape);
    }

    /// <summary>The stores in round <paramref name="round"/>'s order: each store goes first in turn.</summary>
    private static IEnumerable<string> Rotated(IReadOnlyList<string> stores, int round)
    {
        for (int i = 0; i < stores.Count; i++)
            yield return stores[(i + round - 1) % stores.Count];
    }

    private static void CheckSample(IFillStore store, KeySet keys, string name)
    {
        Span<byte> value = stackalloc byte[BenchValues.ValueSize + 1];
        int step = Math.Max(1, keys.Count / CheckedKeys);
        for (int i = keys.Count - 1; i >= 0; i -= step)
        {
            int length = store.ReadForCheck(keys[i], value);
            if (length < 0 || length > BenchValues.ValueSize || !BenchValues.Matches(keys[i], value[..length]))
                throw new InvalidOperationException($"{name}: key #{i} read back {(length < 0 ? "absent" : $"as {length} bytes that are not its value")} after the fill");
        }
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
        output.WriteLine("| mode | order | peer | Cairn puts/s | peer puts/s | Cairn / peer (median of rounds) | with close+sync | size Cairn / peer | device bytes Cairn / peer | process writes Cairn / peer | Cairn allocated per put |");
        output.WriteLine("|---|---|---|---|---|---|---|---|---|---|---|");
        foreach (var mode in options.Modes)
        {
            foreach (var order in options.Orders)
            {
                var cairn = Of(fills, "cairn", mode, order);
                foreach (var peerName in options.Stores.Where(s => s != "cairn"))
                {
                    var peer = Of(fills, peerName, mode, order);
                    if (peer.Length == 0)
                        continue;
                    double ratio = Median(cairn.Zip(peer, (c, p) => p.Seconds / c.Seconds));
                    double ratioWithSync = Median(cairn.Zip(peer, (c, p) => p.SecondsWithSync / c.SecondsWithSync));
                    output.WriteLine($"| {mode} | {order} | {peerName} | {options.Keys / Median(cairn.Select(f => f.Seconds)):N0} | {options.Keys / Median(peer.Select(f => f.Seconds)):N0} | " +
                        $"{ratio:F2}× | {ratioWithSync:F2}× | {Mib((long)Median(cairn.Select(f => (double)f.SizeOnDisk))):N0} / {Mib((long)Median(peer.Select(f => (double)f.SizeOnDisk))):N0} MiB | " +
                        $"{Mib((long)Median(cairn.Select(f => (double)f.DeviceBytes))):N0} / {Mib((long)Median(peer.Select(f => (double)f.DeviceBytes))):N0} MiB | " +
                        $"{Mib((long)Median(cairn.Select(f => (double)(f.ProcessBytes ?? 0)))):N0} / {Mib((long)Median(peer.Select(f => (double)(f.ProcessBytes ?? 0)))):N0} MiB | " +
                        $"{Median(cairn.Select(f => (double)f.AllocatedBytes)) / options.Keys:F1} B |");
                }
            }
        }
    }

    private static Fill[] Of(List<Fill> fills, string store, string mode, string order) =>
        fills.Where(f => f.Store == store && f.Mode == mode && f.Order == order).OrderBy(f => f.Round).ToArray();

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.OrderBy(v => v).ToArray();
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static double Mib(long bytes) => bytes / (1024.0 * 1024.0);
}
