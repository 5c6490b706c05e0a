using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.Durability;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Recovery;

/// <summary>
/// <c>--recovery-kill [--repeat N] [--puts N] [--learn-syncs N]</c> (issue 27, item 3): the open after a writer is killed at
/// the worst moment under default options, when the journal a crash leaves to replay is the longest the defaults allow.
/// A child process (<see cref="WorstMomentWriter"/>) commits random puts with default options, learns from
/// <c>--learn-syncs</c> syncs, in journal bytes, at what span the binding rule syncs (the recovery objective under the
/// defaults: a journals'-budget sync right after an objective sync comes at a small span and is not the worst moment),
/// and SIGKILLs itself at 97 % of it. A kill is a real one: no close, no flush, no sync. The directory is then opened cold
/// in a new process, as <c>--recovery-survey --fresh-process</c> does, and every acknowledged key read back after every
/// open. Uses public members only, so the same code times any build.
/// </summary>
public static class WorstMomentKill
{
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
            var (churn, span, syncedOffset, report) = RunWriter(image, puts, learnSyncs, output);
            output.WriteLine($"writer killed (SIGKILL) at the worst moment: {report}");
            var journals = JournalFiles.Measure(image);
            output.WriteLine($"journals at the kill: {journals.Count} file(s), {journals.Sum(j => j.Size):N0} bytes on disk");
            var runs = new List<RecoveryRun>();
            for (var round = 0; round < repeat; round++)
                runs.Add(RecoveryRun.Measure(image, Path.Combine(root, "cold"), cold: true, churn, journals, freshProcess: true));
            output.WriteLine();
            output.WriteLine(RecoveryRun.TableHeader);
            foreach (var run in runs)
                output.WriteLine(run.TableRow(span));
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
            // The bench's count of the journal to replay starts where the engine's replay starts, or it counts something else.
            foreach (var run in runs)
            {
                var started = run.EngineLog.LastOrDefault(e => e.EventId.Id == EngineLogCapture.RecoveryStarting)?.Number("Offset");
                if (started != syncedOffset)
                {
                    output.WriteLine($"COUNT MISMATCH: the engine's replay started at offset {started?.ToString("N0") ?? "(not logged)"}, the bench counted from {syncedOffset:N0}");
                    return 1;
                }
            }
            output.WriteLine($"the engine's replay started at offset {syncedOffset:N0} of its first journal in every open, where the bench's count of the journal to replay starts");
            return 0;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>Runs the writer child until it kills itself; returns what it had committed and its report, having echoed its sync lines.</summary>
    private static (RecoverySurvey.ChurnResult Churn, long SpanBytes, long SyncedOffset, string Report) RunWriter(string directory, int puts, int learnSyncs, TextWriter echo)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var argument in Environment.GetCommandLineArgs().Take(1).Where(a => a.EndsWith(".dll", StringComparison.Ordinal)))
            start.ArgumentList.Add(argument);
        foreach (var argument in new[] { "--recovery-kill-writer", directory, puts.ToString(CultureInfo.InvariantCulture), learnSyncs.ToString(CultureInfo.InvariantCulture) })
            start.ArgumentList.Add(argument);
        using var child = Process.Start(start)!;
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        foreach (var sync in output.Split('\n').Where(l => l.StartsWith(WorstMomentWriter.SyncLine, StringComparison.Ordinal)))
            echo.WriteLine(sync);
        var line = output.Split('\n').LastOrDefault(l => l.StartsWith(WorstMomentWriter.KilledLine, StringComparison.Ordinal))
            ?? throw new InvalidOperationException($"the writer exited with {child.ExitCode} without reaching the worst moment: {output}");
        var parts = line.Split(' ');
        long Part(int i) => long.Parse(parts[i], CultureInfo.InvariantCulture);
        long last = Part(1), keys = Part(2), synced = Part(3), span = Part(5), target = Part(6), cap = Part(7);
        var rule = (SyncRule)Part(8);
        var options = new StorageOptions(directory);
        var capRule = rule == SyncRule.JournalsPiling
            ? $"the journals' budget at the end of the journal in service ({2 * options.MaxJournalFileBytes:N0} bytes of journal files on disk once the next one opens)"
            : "the recovery objective";
        var report = $"exit code {child.ExitCode}, {span:N0} bytes of journal to replay ({span / (double)(1 << 20):N1} MiB, " +
            $"{span / (double)options.MaxRecoveryJournalBytes:P1} of the recovery objective's bound {options.MaxRecoveryJournalBytes:N0}); " +
            $"this cycle would have synced at {cap:N0} ({capRule}), the kill aimed at 97 % of it, {target:N0}; " +
            $"peaks before the syncs it watched: {parts[9]} (triggered by: {parts[10].Trim()}); " +
            $"last acknowledged transaction {last}, last synced {synced} ({last - synced:N0} transactions of {puts} puts to replay), " +
            $"{keys:N0} keys committed, {parts[4]} s of writing; the replay starts at offset {Part(11):N0} of its journal";
        return (new RecoverySurvey.ChurnResult(synced, last, (int)(last - synced), keys, TimeSpan.Zero, null), span, Part(11), report);
    }
}
