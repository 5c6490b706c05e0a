using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.Durability;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Recovery;

/// <summary>
/// <c>--recovery-kill [--repeat N] [--puts N] [--learn-syncs N]</c> (issue 27, item 3): the open after a writer is killed at
/// the worst moment under default options, when the journal a crash leaves to replay is the longest the defaults allow.
/// A child process (<c>--recovery-kill-writer DIR</c>) opens an environment with default options and commits
/// transactions of random puts without pause. It watches the public <see cref="StorageEnvironment.LastSyncedTransactionId"/>:
/// the transactions committed past the last sync grow until a sync, then drop. For <c>--learn-syncs</c> syncs it notes the
/// count reached just before each (what the defaults let pile up, whatever flushes and syncs them); after that it
/// SIGKILLs itself once the count reaches 97 % of the smallest of those peaks, reporting what it committed first. A kill is a real one: no close,
/// no flush, no sync. The directory is then opened cold in a new process, as <c>--recovery-survey --fresh-process</c>
/// does, and every committed key read back. Uses public members only, so the same code times any build.
/// </summary>
public static class WorstMomentKill
{
    private const string KilledLine = "killed-at";

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        int repeat = 3, puts = 100, learnSyncs = 2;
        for (var i = 0; i + 1 < args.Count; i += 2)
        {
            var value = int.Parse(args[i + 1], CultureInfo.InvariantCulture);
            _ = args[i] switch
            {
                "--repeat" => repeat = value,
                "--puts" => puts = value,
                "--learn-syncs" => learnSyncs = value,
                _ => throw new ArgumentException($"unknown option {args[i]}; known: --repeat N, --puts N, --learn-syncs N"),
            };
        }
        var root = BenchScratch.Directory("recovery-kill");
        var image = Path.Combine(root, "killed");
        try
        {
            var (churn, report) = RunWriter(image, puts, learnSyncs);
            output.WriteLine($"writer killed (SIGKILL) at the worst moment: {report}");
            var journals = JournalFiles.Measure(image);
            output.WriteLine($"journals at the kill: {journals.Count} file(s), {journals.Sum(j => j.Size):N0} bytes on disk");
            var runs = new List<RecoveryRun>();
            for (var round = 0; round < repeat; round++)
                runs.Add(RecoveryRun.Measure(image, Path.Combine(root, "cold"), cold: true, churn, journals, freshProcess: true));
            output.WriteLine();
            output.WriteLine(RecoveryRun.TableHeader);
            foreach (var run in runs)
                output.WriteLine(run.TableRow(journals.Sum(j => j.Written)));
            var times = runs.Select(r => r.OpenTime.TotalMilliseconds).Order().ToArray();
            output.WriteLine($"cold reopen after the kill: median {times[times.Length / 2]:N1} ms of {times.Length} (min {times[0]:N1}, max {times[^1]:N1})");
            output.WriteLine();
            foreach (var run in runs)
                run.WriteDetails(output);
            if (runs.FirstOrDefault(r => !r.ReadBackPassed) is { } failed)
            {
                output.WriteLine($"READ-BACK FAILED: {failed.Missing:N0} missing, {failed.Wrong:N0} wrong of {churn.CommittedKeys:N0} committed keys; " +
                    $"reopened at transaction {failed.LastCommittedAfterOpen}, the last acknowledged commit was {churn.LastCommittedTransactionId}");
                return 1;
            }
            return 0;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>Runs the writer child until it kills itself; returns what it had committed and its own report line.</summary>
    private static (RecoverySurvey.ChurnResult Churn, string Report) RunWriter(string directory, int puts, int learnSyncs)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var argument in Environment.GetCommandLineArgs().Take(1).Where(a => a.EndsWith(".dll", StringComparison.Ordinal)))
            start.ArgumentList.Add(argument);
        foreach (var argument in new[] { "--recovery-kill-writer", directory, puts.ToString(CultureInfo.InvariantCulture), learnSyncs.ToString(CultureInfo.InvariantCulture) })
            start.ArgumentList.Add(argument);
        using var child = Process.Start(start)!;
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        var line = output.Split('\n').LastOrDefault(l => l.StartsWith(KilledLine, StringComparison.Ordinal))
            ?? throw new InvalidOperationException($"the writer exited with {child.ExitCode} without reaching the worst moment: {output}");
        var parts = line.Split(' ');
        long last = long.Parse(parts[1], CultureInfo.InvariantCulture), keys = long.Parse(parts[2], CultureInfo.InvariantCulture);
        long synced = long.Parse(parts[3], CultureInfo.InvariantCulture);
        var report = $"exit code {child.ExitCode}, last acknowledged transaction {last}, last synced {synced} ({last - synced:N0} transactions of {puts} puts to replay; " +
            $"peaks before the syncs it watched: {parts[4]}), {keys:N0} keys committed, {parts[5]} s of writing";
        return (new RecoverySurvey.ChurnResult(synced, last, (int)(last - synced), keys, TimeSpan.Zero, null), report);
    }

    /// <summary>The child: <c>--recovery-kill-writer DIR PUTS LEARN_SYNCS</c>. Never returns normally once it has learnt the peak.</summary>
    public static int RunWriterChild(IReadOnlyList<string> args, TextWriter output)
    {
        string directory = args[0];
        int puts = int.Parse(args[1], CultureInfo.InvariantCulture), learnSyncs = int.Parse(args[2], CultureInfo.InvariantCulture);
        var env = StorageEnvironment.Open(new StorageOptions(directory));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree(RecoveryRun.TreeName);
            tx.Commit();
        }
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        var peaks = new List<long>();
        long lastSynced = env.LastSyncedTransactionId, outstandingBefore = 0;
        ulong next = 0;
        var stopwatch = Stopwatch.StartNew();
        while (true)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree(RecoveryRun.TreeName);
                for (var i = 0; i < puts; i++)
                {
                    DurableKeys.Write(next++, key);
                    BenchValues.Compose(key, value);
                    tree.Put(key, value);
                }
                tx.Commit();
            }
            long last = env.LastCommittedTransactionId, synced = env.LastSyncedTransactionId;
            if (synced != lastSynced)
            {
                peaks.Add(outstandingBefore); // the most that piled up before this sync
                lastSynced = synced;
                Console.Error.WriteLine(FormattableString.Invariant(
                    $"writer: sync {peaks.Count} at {stopwatch.Elapsed.TotalSeconds:F1} s, {outstandingBefore} transactions were past the previous one"));
            }
            long outstanding = last - synced;
            outstandingBefore = outstanding;
            // Near the smallest learnt peak (the first sync after the open is left out when there are others): each cycle
            // reaches it, so the kill comes within one cycle, at most a few percent short of what that cycle would pile up.
            if (peaks.Count >= learnSyncs && outstanding >= 0.97 * peaks.Skip(peaks.Count > 1 ? 1 : 0).Min())
            {
                output.WriteLine(FormattableString.Invariant(
                    $"{KilledLine} {last} {next} {synced} {string.Join(',', peaks)} {stopwatch.Elapsed.TotalSeconds:F1}"));
                output.Flush();
                Process.GetCurrentProcess().Kill();
                Thread.Sleep(Timeout.Infinite);
            }
        }
    }
}
