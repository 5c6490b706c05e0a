using System.Diagnostics;
using Cairn.Bench.Durability;
using Cairn.Bench.KeyValue;
using Microsoft.Extensions.Logging;

namespace Cairn.Bench.Recovery;

/// <summary>
/// One timed open of a copy of the crashed environment: the copy is made, the page cache dropped
/// (cold) or filled with the copy (warm), <see cref="StorageEnvironment.Open"/> timed, and every
/// key committed before the crash read back in one read transaction.
/// </summary>
internal sealed class RecoveryRun
{
    internal const string TreeName = "kv";

    private RecoveryRun(string name, string pageCache, RecoverySurvey.ChurnResult churn)
    {
        Name = name;
        PageCache = pageCache;
        Churn = churn;
    }

    public string Name { get; }

    public string PageCache { get; }

    public RecoverySurvey.ChurnResult Churn { get; }

    public TimeSpan OpenTime { get; private set; }

    public long LastCommittedAfterOpen { get; private set; }

    public IReadOnlyList<EngineLogCapture.Entry> EngineLog { get; private set; } = [];

    public long Missing { get; private set; }

    public long Wrong { get; private set; }

    public long FirstMissing { get; private set; } = -1;

    public bool ReadBackPassed => Missing == 0 && Wrong == 0 && LastCommittedAfterOpen == Churn.LastCommittedTransactionId;

    public static RecoveryRun Measure(string image, string directory, bool cold, RecoverySurvey.ChurnResult churn)
    {
        Copy(image, directory);
        string cache;
        if (cold)
        {
            var (dropped, how) = Recovery.PageCache.TryDrop();
            cache = dropped ? $"dropped ({how})" : $"NOT dropped: {how}";
        }
        else
        {
            Recovery.PageCache.Warm(directory);
            cache = "warm (every file read after the copy)";
        }

        var run = new RecoveryRun(cold ? "cold" : "warm", cache, churn);
        var log = new EngineLogCapture();
        var stopwatch = Stopwatch.StartNew();
        var env = StorageEnvironment.Open(new StorageOptions(directory) { LoggerFactory = log });
        run.OpenTime = stopwatch.Elapsed;
        try
        {
            run.LastCommittedAfterOpen = env.LastCommittedTransactionId;
            run.ReadBack(env, churn.CommittedKeys);
        }
        finally
        {
            env.Dispose();
            run.EngineLog = log.Entries;
            Directory.Delete(directory, recursive: true);
        }
        return run;
    }

    /// <summary>
    /// One row of the survey's table. Replay MB/s is the journal written before the crash (what had
    /// to be replayed) over the whole open, in 10^6 bytes per second; the engine's own count of the
    /// bytes it read (whole 4 KiB blocks up to where the log ends) and its replay-only time are in
    /// the details below the table.
    /// </summary>
    public string TableRow(long journalWritten)
    {
        var replay = EngineLog.LastOrDefault(e => e.EventId.Id == EngineLogCapture.RecoveryCompleted);
        var read = replay?.Number("Bytes") is { } b ? $"{b:N0}" : "not reported";
        var transactions = replay?.Number("Transactions") is { } t ? $"{t:N0}" : "not reported";
        var recovered = LastCommittedAfterOpen - Churn.TransactionIdAtCleanClose;
        var committed = Churn.LastCommittedTransactionId - Churn.TransactionIdAtCleanClose;
        var rate = journalWritten > 0 ? $"{journalWritten / 1e6 / OpenTime.TotalSeconds:N0}" : "—";
        var readBack = Missing == 0 && Wrong == 0
            ? $"all {Churn.CommittedKeys:N0}"
            : $"**FAILED**: {Missing:N0} missing, {Wrong:N0} wrong of {Churn.CommittedKeys:N0}";
        return $"| {Name} | {PageCache} | {OpenTime.TotalMilliseconds:N1} ms | {journalWritten:N0} | {read} | {transactions} | " +
            $"{recovered:N0} of {committed:N0} | {rate} | {OpenTime.TotalSeconds:F3} | {readBack} |";
    }

    public const string TableHeader =
        "| run | page cache | open time | journal to replay (bytes written) | journal bytes read (engine) | transactions replayed (engine) | " +
        "transactions recovered / committed since the last sync | replay MB/s | open / 1 s target | committed keys read back |\n" +
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |";

    public void WriteDetails(TextWriter output)
    {
        output.WriteLine($"{Name}: last committed transaction after open {LastCommittedAfterOpen} (before the crash: {Churn.LastCommittedTransactionId})");
        var messages = EngineLog.Where(e => e.Level >= LogLevel.Information).ToArray();
        if (messages.Length == 0)
            output.WriteLine("  engine log during open: nothing");
        foreach (var entry in messages)
            output.WriteLine($"  engine log {entry.EventId.Id} {entry.Level}: {entry.Message}");
        var replay = EngineLog.LastOrDefault(e => e.EventId.Id == EngineLogCapture.RecoveryCompleted);
        if (replay?.Number("ElapsedMs") is { } ms && replay.Number("Bytes") is { } bytes && ms > 0)
            output.WriteLine($"  replay alone (engine's own timing): {ms:N1} ms, {bytes / 1e6 / (ms / 1000):N0} MB/s of journal read; the rest of the open: {OpenTime.TotalMilliseconds - ms:N1} ms");
    }

    private void ReadBack(StorageEnvironment env, long keys)
    {
        using var tx = env.BeginRead();
        if (!tx.TryOpenTree(TreeName, out var tree))
        {
            Missing = keys;
            FirstMissing = 0;
            return;
        }
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        for (long i = 0; i < keys; i++)
        {
            DurableKeys.Write((ulong)i, key);
            if (!tree.TryGet(key, out var value))
            {
                if (Missing++ == 0)
                    FirstMissing = i;
            }
            else if (!BenchValues.Matches(key, value))
            {
                Wrong++;
            }
        }
    }

    internal static void Copy(string source, string destination)
    {
        Directory.CreateDirectory(destination);
        foreach (var path in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            var target = Path.Combine(destination, Path.GetRelativePath(source, path));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(path, target);
        }
        foreach (var path in Directory.EnumerateDirectories(source, "*", SearchOption.AllDirectories))
            Directory.CreateDirectory(Path.Combine(destination, Path.GetRelativePath(source, path)));
    }
}
