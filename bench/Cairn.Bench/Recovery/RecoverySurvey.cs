using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.Durability;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Recovery;

/// <summary>
/// <c>--recovery-survey</c> (durability issue: "replay rate and open time after a crash with a full
/// 256 MiB journal, target under 1 s"). Fills an environment, closes it cleanly (everything synced
/// into the data file), reopens it with a flusher that never flushes or syncs, commits random-put
/// transactions until the journal since that sync holds the target bytes, then simulates a process
/// crash. Copies of the crashed directory are then opened cold (page cache dropped, when the process
/// may) and warm, timing <see cref="StorageEnvironment.Open"/> and checking every committed key.
/// Exits non-zero if any committed key is missing or wrong after the reopen.
/// </summary>
public static class RecoverySurvey
{
    private const int FillBatch = 1_000;
    private const int CheckEvery = 50;
    // With no journal file after this many commits the engine writes none: stop instead of looping.
    private const int NoJournalGiveUp = 2_000;
    private const int MaxChurnTransactions = 1_000_000;

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var options = RecoverySurveyOptions.Parse(args);
        var root = BenchScratch.Directory("recovery-survey");
        var image = Path.Combine(root, "crashed");
        try
        {
            ChurnResult churn;
            long written;
            if (options.Image is { } saved)
            {
                image = Path.Combine(saved, "crashed");
                churn = ReadChurn(saved);
                written = JournalFiles.Measure(image).Sum(j => j.Written);
                output.WriteLine($"recovery survey on the saved image {saved}: transactions {churn.TransactionIdAtCleanClose + 1}..{churn.LastCommittedTransactionId}, " +
                    $"{churn.CommittedKeys:N0} keys, {written:N0} journal bytes written");
            }
            else
            {
                (churn, written) = Build(image, options, output);
                if (options.SaveImage is { } target)
                    Save(image, churn, target);
            }

            var journals = JournalFiles.Measure(image);
            var runs = new List<RecoveryRun>();
            for (var round = 0; round < options.Repeat; round++)
            {
                if (options.Only != "warm")
                    runs.Add(RecoveryRun.Measure(image, Path.Combine(root, "cold"), cold: true, churn, journals, options.FreshProcess));
                if (options.Only != "cold")
                    runs.Add(RecoveryRun.Measure(image, Path.Combine(root, "warm"), cold: false, churn, journals, options.FreshProcess));
            }

            output.WriteLine();
            output.WriteLine(RecoveryRun.TableHeader);
            foreach (var run in runs)
                output.WriteLine(run.TableRow(written));
            if (options.Repeat > 1)
            {
                output.WriteLine();
                foreach (var name in new[] { "cold", "warm" })
                {
                    var ofKind = runs.Where(r => r.Name == name).ToArray();
                    if (ofKind.Length == 0)
                        continue;
                    var times = ofKind.Select(r => r.OpenTime.TotalMilliseconds).Order().ToArray();
                    output.WriteLine($"{name}: median {Median(times):N1} ms of {times.Length} opens (min {times[0]:N1}, max {times[^1]:N1}); " +
                        $"CPU median {Median([.. ofKind.Select(r => r.OpenCpuTime.TotalMilliseconds).Order()]):N0} ms; " +
                        $"journal read alone median {Median([.. ofKind.Select(r => r.JournalReadTime.TotalMilliseconds).Order()]):N1} ms; " +
                        $"open / read median {Median([.. ofKind.Select(r => r.OpenOverRead).Order()]):F2}");
                }
            }
            output.WriteLine();
            foreach (var run in runs)
                run.WriteDetails(output);

            var failed = runs.Where(r => !r.ReadBackPassed).ToArray();
            if (failed.Length > 0)
            {
                var run = failed[0];
                output.WriteLine();
                output.WriteLine($"READ-BACK FAILED ({run.Name} run): after the simulated crash {run.Missing:N0} of {churn.CommittedKeys:N0} committed keys " +
                    $"are missing (first: key index {run.FirstMissing}) and {run.Wrong:N0} have wrong values; the environment reopened at transaction " +
                    $"{run.LastCommittedAfterOpen}, the last commit before the crash was {churn.LastCommittedTransactionId}.");
                output.WriteLine(written == 0
                    ? "No journal was written: in this build Commit does not make a transaction durable, so committed transactions are lost " +
                      "in a crash and the open times above measure no recovery at all."
                    : "Committed transactions were lost although a journal was written: recovery is broken.");
                return 1;
            }
            if (written == 0)
            {
                output.WriteLine("NOTE: no journal was written, so nothing was replayed and these open times say nothing about recovery.");
                return 1;
            }
            return 0;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    private static double Median(double[] sorted) =>
        sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;

    /// <summary>Fills, writes the journal and crashes; returns what was committed and the journal bytes written.</summary>
    private static (ChurnResult Churn, long Written) Build(string image, RecoverySurveyOptions options, TextWriter output)
    {
        output.WriteLine($"recovery survey: {options.FillKeys:N0} random keys, then {options.PutsPerTransaction}-put transactions until " +
            $"{options.JournalBytes >> 20} MiB of journal since the last sync; {Path.GetDirectoryName(image)}");

        var fillTime = Fill(image, options);
        output.WriteLine($"fill: {options.FillKeys:N0} keys in {FillBatch:N0}-put transactions, then a clean close: {fillTime.TotalSeconds:F1} s; " +
            $"data file {new FileInfo(Path.Combine(image, StorageEnvironment.DataFileName)).Length:N0} bytes");

        var (churn, crashing) = WriteJournal(image, options, output);
        IReadOnlyList<JournalFileExtent> journals;
        try
        {
            // Measured while the environment is still open but idle, as the brief's "before the crash".
            journals = JournalFiles.Measure(image);
        }
        finally
        {
            crashing.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        output.WriteLine("simulated a process crash: files closed with no flush, sync or header write");
        long allocated = journals.Sum(j => j.Size), written = journals.Sum(j => j.Written);
        output.WriteLine($"journal at the crash: {journals.Count} file(s), {allocated:N0} bytes on disk, {written:N0} bytes written " +
            $"({(double)written / (1 << 20):F1} MiB; end of each file's last non-zero 4 KiB block)");
        foreach (var journal in journals)
            output.WriteLine($"  {journal.Name}: {journal.Size:N0} bytes, {journal.Written:N0} written");
        return (churn, written);
    }

    private const string ChurnFile = "churn.txt";

    /// <summary>Copies the crashed image to <paramref name="target"/>/crashed with what was committed beside it.</summary>
    private static void Save(string image, ChurnResult churn, string target)
    {
        if (Directory.Exists(target))
            Directory.Delete(target, recursive: true);
        RecoveryRun.Copy(image, Path.Combine(target, "crashed"));
        File.WriteAllText(Path.Combine(target, ChurnFile), FormattableString.Invariant(
            $"{churn.TransactionIdAtCleanClose} {churn.LastCommittedTransactionId} {churn.Transactions} {churn.CommittedKeys}"));
    }

    private static ChurnResult ReadChurn(string saved)
    {
        var parts = File.ReadAllText(Path.Combine(saved, ChurnFile)).Split(' ');
        return new ChurnResult(long.Parse(parts[0], CultureInfo.InvariantCulture), long.Parse(parts[1], CultureInfo.InvariantCulture),
            int.Parse(parts[2], CultureInfo.InvariantCulture), long.Parse(parts[3], CultureInfo.InvariantCulture), TimeSpan.Zero, null);
    }

    /// <summary>The committed state the crash must preserve.</summary>
    internal sealed record ChurnResult(long TransactionIdAtCleanClose, long LastCommittedTransactionId, int Transactions, long CommittedKeys, TimeSpan Elapsed, string? StopReason);

    private static TimeSpan Fill(string directory, RecoverySurveyOptions options)
    {
        var stopwatch = Stopwatch.StartNew();
        using var env = StorageEnvironment.Open(new StorageOptions(directory));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree(RecoveryRun.TreeName);
            tx.Commit();
        }
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var start = 0; start < options.FillKeys; start += FillBatch)
        {
            using var tx = env.BeginWrite();
            var tree = tx.OpenTree(RecoveryRun.TreeName);
            for (var i = start; i < Math.Min(start + FillBatch, options.FillKeys); i++)
            {
                DurableKeys.Write((ulong)i, key);
                BenchValues.Compose(key, value);
                tree.Put(key, value);
            }
            tx.Commit();
        }
        env.Dispose();
        return stopwatch.Elapsed;
    }

    /// <summary>
    /// Options under which nothing reaches the data file while the journal is written: no flush by
    /// size or age, no timed sync, and journal files up to 256 MiB (the engine also syncs when the
    /// journals it keeps reach twice that, which the target stays under).
    /// </summary>
    private static StorageOptions NoFlushOptions(string directory) => new(directory)
    {
        FlushThresholdBytes = 1L << 40,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        MaxJournalFileBytes = 256L << 20,
        MaxScratchBytes = 8L << 30,
    };

    /// <summary>Writes the journal to replay; returns the environment still open, for the caller to crash.</summary>
    private static (ChurnResult Result, StorageEnvironment Environment) WriteJournal(string directory, RecoverySurveyOptions options, TextWriter output)
    {
        var spares = JournalFiles.DeleteSpares(directory);
        if (spares > 0)
            output.WriteLine($"deleted {spares} spare journal(s) (recyclable.*) so every journal measured below is freshly pre-zeroed");
        var env = StorageEnvironment.Open(NoFlushOptions(directory));
        var t0 = env.LastCommittedTransactionId;
        try
        {
            return (WriteUntilTarget(env, directory, t0, options, output), env);
        }
        catch
        {
            env.ForTestingPurposesOnly().SimulateProcessCrash();
            throw;
        }
    }

    private static ChurnResult WriteUntilTarget(StorageEnvironment env, string directory, long t0, RecoverySurveyOptions options, TextWriter output)
    {
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        var next = (ulong)options.FillKeys;
        var transactions = 0;
        string? stopReason = null;
        var stopwatch = Stopwatch.StartNew();
        while (true)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree(RecoveryRun.TreeName);
                for (var i = 0; i < options.PutsPerTransaction; i++)
                {
                    DurableKeys.Write(next++, key);
                    BenchValues.Compose(key, value);
                    tree.Put(key, value);
                }
                tx.Commit();
            }
            transactions++;
            if (transactions % CheckEvery != 0)
                continue;
            if (JournalFiles.EstimateWritten(directory) >= options.JournalBytes)
                break;
            if (transactions >= NoJournalGiveUp && JournalFiles.List(directory).Count == 0)
            {
                stopReason = $"no journal file in {JournalFiles.DirectoryOf(directory)} after {transactions:N0} commits: this build writes no journal";
                break;
            }
            if (transactions >= MaxChurnTransactions)
            {
                stopReason = $"stopped at {transactions:N0} transactions before the journal reached the target";
                break;
            }
        }
        var elapsed = stopwatch.Elapsed;
        var result = new ChurnResult(t0, env.LastCommittedTransactionId, transactions, (long)next, elapsed, stopReason);
        output.WriteLine($"journal writing: {transactions:N0} transactions of {options.PutsPerTransaction} random puts in {elapsed.TotalSeconds:F1} s " +
            $"({transactions / elapsed.TotalSeconds:N0}/s), transactions {t0 + 1}..{result.LastCommittedTransactionId}; " +
            $"{result.CommittedKeys:N0} keys committed in all");
        if (stopReason is not null)
            output.WriteLine($"  {stopReason}");
        return result;
    }
}
