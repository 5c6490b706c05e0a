using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
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

    /// <summary>CPU time of the whole process (every thread) during the open: less sensitive than <see cref="OpenTime"/> to other processes on a loaded machine.</summary>
    public TimeSpan OpenCpuTime { get; private set; }

    /// <summary>
    /// The disk-speed peer, measured just before the open under the same page-cache condition: reading the
    /// journal bytes to replay (each file up to its written end) front to back in 4 MiB reads, and nothing else.
    /// </summary>
    public TimeSpan JournalReadTime { get; private set; }

    /// <summary>Open time ÷ <see cref="JournalReadTime"/>: 1.0 would be recovery at the speed of reading its journal.</summary>
    public double OpenOverRead => OpenTime / JournalReadTime;

    public long LastCommittedAfterOpen { get; private set; }

    public IReadOnlyList<EngineLogCapture.Entry> EngineLog { get; private set; } = [];

    public long Missing { get; private set; }

    public long Wrong { get; private set; }

    public long FirstMissing { get; private set; } = -1;

    public bool ReadBackPassed => Missing == 0 && Wrong == 0 && LastCommittedAfterOpen == Churn.LastCommittedTransactionId;

    public static RecoveryRun Measure(string image, string directory, bool cold, RecoverySurvey.ChurnResult churn,
        IReadOnlyList<JournalFileExtent> journals, bool freshProcess)
    {
        Copy(image, directory);
        string cache;
        TimeSpan readTime;
        if (cold)
        {
            Recovery.PageCache.TryDrop();
            readTime = ReadJournals(directory, journals);
            var (dropped, how) = Recovery.PageCache.TryDrop();
            cache = dropped ? $"dropped ({how})" : $"NOT dropped: {how}";
        }
        else
        {
            Recovery.PageCache.Warm(directory);
            readTime = ReadJournals(directory, journals);
            cache = "warm (every file read after the copy)";
        }

        var run = new RecoveryRun(cold ? "cold" : "warm", cache, churn) { JournalReadTime = readTime };
        try
        {
            if (freshProcess)
                run.OpenInChildProcess(directory);
            else
                run.OpenAndReadBack(directory);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
        return run;
    }

    private void OpenAndReadBack(string directory)
    {
        var log = new EngineLogCapture();
        var cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var stopwatch = Stopwatch.StartNew();
        var env = StorageEnvironment.Open(new StorageOptions(directory) { LoggerFactory = log });
        OpenTime = stopwatch.Elapsed;
        OpenCpuTime = Process.GetCurrentProcess().TotalProcessorTime - cpu;
        try
        {
            LastCommittedAfterOpen = env.LastCommittedTransactionId;
            ReadBack(env, Churn.CommittedKeys);
        }
        finally
        {
            env.Dispose();
            EngineLog = log.Entries;
        }
    }

    /// <summary>What a child process reports back (one JSON line on its standard output).</summary>
    private sealed record ChildReport(double OpenMs, double OpenCpuMs, long LastCommitted, long Missing, long Wrong, long FirstMissing, List<ChildLogEntry> Log);

    private sealed record ChildLogEntry(LogLevel Level, int Id, string Message, Dictionary<string, double> Numbers);

    /// <summary>
    /// The open of a restarting application: a new process of this benchmark (<c>--recovery-open DIR KEYS
    /// LAST</c>) opens the copy and reads it back, so nothing it does is helped by code already compiled or memory
    /// already faulted in by earlier opens in this process.
    /// </summary>
    private void OpenInChildProcess(string directory)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var argument in Environment.GetCommandLineArgs().Take(1).Where(a => a.EndsWith(".dll", StringComparison.Ordinal)))
            start.ArgumentList.Add(argument);
        foreach (var argument in new[] { "--recovery-open", directory, Churn.CommittedKeys.ToString(CultureInfo.InvariantCulture),
            Churn.LastCommittedTransactionId.ToString(CultureInfo.InvariantCulture), Churn.TransactionIdAtCleanClose.ToString(CultureInfo.InvariantCulture) })
            start.ArgumentList.Add(argument);
        using var child = Process.Start(start)!;
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        if (child.ExitCode != 0)
            throw new InvalidOperationException($"the child open exited with {child.ExitCode}: {output}");
        var report = JsonSerializer.Deserialize<ChildReport>(output.Trim().Split('\n')[^1])!;
        OpenTime = TimeSpan.FromMilliseconds(report.OpenMs);
        OpenCpuTime = TimeSpan.FromMilliseconds(report.OpenCpuMs);
        LastCommittedAfterOpen = report.LastCommitted;
        Missing = report.Missing;
        Wrong = report.Wrong;
        FirstMissing = report.FirstMissing;
        EngineLog = [.. report.Log.Select(e => new EngineLogCapture.Entry(e.Level, new EventId(e.Id), e.Message,
            [.. e.Numbers.Select(n => new KeyValuePair<string, object?>(n.Key, n.Value))]))];
    }

    /// <summary>The child's side of <see cref="OpenInChildProcess"/>: <c>--recovery-open DIR KEYS LAST CLEAN</c>.</summary>
    public static int RunChild(IReadOnlyList<string> args, TextWriter output)
    {
        var churn = new RecoverySurvey.ChurnResult(long.Parse(args[3], CultureInfo.InvariantCulture), long.Parse(args[2], CultureInfo.InvariantCulture),
            0, long.Parse(args[1], CultureInfo.InvariantCulture), TimeSpan.Zero, null);
        var run = new RecoveryRun("child", "", churn);
        run.OpenAndReadBack(args[0]);
        var log = run.EngineLog.Select(e => new ChildLogEntry(e.Level, e.EventId.Id, e.Message,
            e.Values.Where(v => v.Value is IConvertible and not string)
                .ToDictionary(v => v.Key, v => ((IConvertible)v.Value!).ToDouble(CultureInfo.InvariantCulture)))).ToList();
        output.WriteLine(JsonSerializer.Serialize(new ChildReport(run.OpenTime.TotalMilliseconds, run.OpenCpuTime.TotalMilliseconds, run.LastCommittedAfterOpen, run.Missing, run.Wrong,
            run.FirstMissing, log)));
        return 0;
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
        return $"| {Name} | {PageCache} | {OpenTime.TotalMilliseconds:N1} ms | {OpenCpuTime.TotalMilliseconds:N0} ms | {JournalReadTime.TotalMilliseconds:N1} ms | {OpenOverRead:F2} | " +
            $"{journalWritten:N0} | {read} | {transactions} | {recovered:N0} of {committed:N0} | {rate} | {OpenTime.TotalSeconds:F3} | {readBack} |";
    }

    public const string TableHeader =
        "| run | page cache | open time | open CPU time (process) | journal read alone (peer) | open / read | journal to replay (bytes written) | journal bytes read (engine) | " +
        "transactions replayed (engine) | transactions recovered / committed since the last sync | replay MB/s | open / 1 s target | committed keys read back |\n" +
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |";

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
        var stages = EngineLog.LastOrDefault(e => e.EventId.Id == EngineLogCapture.RecoveryStages);
        if (stages?.Number("ReadMs") is { } readMs && stages.Number("ApplyMs") is { } applyMs && stages.Number("TailScanMs") is { } tailMs
            && stages.Number("ValidateMs") is { } validateMs)
            output.WriteLine($"  replay stages (engine's own timing): reading thread: read and validate {readMs:N1} ms, " +
                $"check records {stages.Number("CheckMs") ?? 0:N1} ms, scan past the log's end {tailMs:N1} ms, wait for the applier {stages.Number("ReadWaitMs") ?? 0:N1} ms; " +
                $"applying thread: apply {applyMs:N1} ms, wait for entries {stages.Number("ApplyWaitMs") ?? 0:N1} ms; " +
                $"then wait for the apply to end {stages.Number("DrainMs") ?? 0:N1} ms, validate rebuilt pages {validateMs:N1} ms");
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

    /// <summary>Reads each journal file of the copy up to its written end, in file order, 4 MiB at a time.</summary>
    private static TimeSpan ReadJournals(string directory, IReadOnlyList<JournalFileExtent> journals)
    {
        var buffer = new byte[4 << 20];
        var stopwatch = Stopwatch.StartNew();
        foreach (var journal in journals)
        {
            using var stream = new FileStream(Path.Combine(JournalFiles.DirectoryOf(directory), journal.Name), FileMode.Open, FileAccess.Read,
                FileShare.ReadWrite, bufferSize: 0);
            for (long left = journal.Written; left > 0;)
            {
                int got = stream.Read(buffer, 0, (int)Math.Min(buffer.Length, left));
                if (got == 0)
                    break;
                left -= got;
            }
        }
        return stopwatch.Elapsed;
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
