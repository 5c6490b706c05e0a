using System.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.TestChild;
using Cairn.Tests.Durability;
using Cairn.Tests.Support;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A journal group killed with SIGKILL: a child process opens a root and 8 branches and commits into all
/// nine at once, from threads through <c>BeginWrite</c>/<c>Commit</c> and callers through <c>WriteAsync</c>
/// (a different mix per environment and cycle), acknowledging each transaction once its commit returned. The
/// parent kills it at random moments (<see cref="KillPlan"/>), reopens every environment and checks
/// <see cref="CrashInvariants"/> for each: every acknowledged transaction present, none half-applied, no holes,
/// <see cref="StorageEnvironment.Verify"/> passing. The checks take turns: (a) the root alone first, then each
/// branch alone; (b) each branch alone first (its root not open), then the root; (c) the group again (root,
/// then <see cref="StorageEnvironment.OpenBranch"/> for each), which commits a few transactions into all nine
/// and then crashes itself, so journals and their links pile up for the next writer to recover, like the
/// cycles whose recovery the parent leaves to the next writer. Half the cycles run with the flusher effectively
/// off (every journal and link kept), half flushing and syncing every few milliseconds, so each environment
/// deletes its own links while the others keep theirs.
/// </summary>
/// <remarks>
/// <c>CAIRN_SHARED_CRASH_CYCLES</c> sets the number of kill cycles (default 90: about 0.7 s each, 60 s, on 2 cores);
/// <c>CAIRN_CRASH_SEED</c> replays the workloads and the choices of each cycle (the kill moments themselves
/// depend on timing and cannot be replayed exactly).
/// </remarks>
public sealed class SharedJournalCrashTests(ITestOutputHelper output)
{
    private const int Branches = 8;
    private const int Environments = Branches + 1;
    private const int DefaultCycles = 90;
    private const int CommitsAfterRecovery = 5;
    private static readonly TimeSpan StartTimeout = TimeSpan.FromMinutes(1);
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromMinutes(1);

    /// <summary>No flush, no sync, no journal pressure within a run; small first journals, so the root switches files and branches link several.</summary>
    private static readonly CrashWriterSettings NotFlushing = new()
    {
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelayMilliseconds = 3_600_000,
        SyncIntervalMilliseconds = 3_600_000,
        InitialJournalSize = 128 << 10,
        MaxJournalSize = 64 << 20,
    };

    /// <summary>Flushes and syncs every few milliseconds, each environment on its own: links go while others' names of the same files stay.</summary>
    private static readonly CrashWriterSettings Flushing = new()
    {
        FlushThresholdBytes = 256 << 10,
        MaxFlushDelayMilliseconds = 5,
        SyncIntervalMilliseconds = 20,
        InitialJournalSize = 64 << 10,
        MaxJournalSize = 1 << 20,
    };

    /// <summary>How the parent reopens the environments to check them.</summary>
    private enum Reopen
    {
        RootFirstAlone,
        BranchesFirstAlone,
        AsGroup,
    }

    private static readonly int[] WritesInFlight = [1, 2, 4];

    [Fact]
    public async Task Every_transaction_acknowledged_by_a_root_or_its_branches_survives_SIGKILL()
    {
        int cycles = checked((int)ProcessCrashTests.Setting("CAIRN_SHARED_CRASH_CYCLES", DefaultCycles));
        long seed = ProcessCrashTests.Setting("CAIRN_CRASH_SEED", Random.Shared.NextInt64(1, 1_000_000_000));
        string replay = $"replay with CAIRN_CRASH_SEED={seed} CAIRN_SHARED_CRASH_CYCLES={cycles}";
        output.WriteLine($"seed {seed}, {cycles} cycles, a root and {Branches} branches");

        using var dir = new TestDirectory("shared-crash");
        var models = Enumerable.Range(0, Environments).Select(k => new CrashWorkloadModel(SharedCrashWriterSettings.Workload(seed, k))).ToArray();
        var bounds = new TransactionBounds[Environments];
        var random = new Random(unchecked((int)seed ^ (int)(seed >> 32)));
        var stats = new SharedCrashStatistics(Environments);
        try
        {
            for (int cycle = 1; cycle <= cycles; cycle++)
            {
                bool flushing = cycle % 2 == 0;
                // The root sends 1, 2 or 4 shared writes at once: a kill may find several in flight.
                var storage = (flushing ? Flushing : NotFlushing) with { GroupWritesInFlight = WritesInFlight[random.Next(WritesInFlight.Length)] };
                var settings = Choose(random, storage);
                var plan = KillPlan.Choose(random, lastCycle: cycle == cycles);
                Reopen? reopen = plan.CheckAfterwards ? (Reopen)(stats.Checks % 3) : null;
                try
                {
                    await KillAndCheckAsync(dir.Path, seed, settings, plan, reopen, models, bounds, stats);
                }
                catch (Exception e)
                {
                    string writers = string.Join(" ", Enumerable.Range(0, Environments).Select(k => $"{Name(k)} {settings.Writers[k]}+{settings.Callers[k]}"));
                    throw new XunitException($"cycle {cycle} of {cycles} ({plan}{(flushing ? ", flushing often" : ", not flushing")}, " +
                        $"{settings.Storage.GroupWritesInFlight} group writes in flight, " +
                        $"checked {reopen?.ToString() ?? "by the next writer"}; BeginWrite threads + merger callers: {writers}), seed {seed}: " +
                        $"{e.Message}{System.Environment.NewLine}{replay}", e);
                }
            }
        }
        finally
        {
            foreach (var line in stats.Summary())
                output.WriteLine(line);
        }
        Assert.Equal(0, stats.Lost.Sum());
    }

    /// <summary>Per environment, 0 to 2 <c>BeginWrite</c> threads and 0 to 2 merger callers, at least one caller.</summary>
    private static SharedCrashWriterSettings Choose(Random random, CrashWriterSettings storage)
    {
        var writers = new int[Environments];
        var callers = new int[Environments];
        for (int k = 0; k < Environments; k++)
        {
            writers[k] = random.Next(3);
            callers[k] = random.Next(writers[k] == 0 ? 1 : 0, 3);
        }
        return new SharedCrashWriterSettings(storage, writers, callers);
    }

    private static string Name(int k) => k == 0 ? "root" : $"b{k}";

    private static string Directory(string root, int k) => SharedCrashWriterSettings.EnvironmentDirectory(root, k);

    /// <summary>One cycle: start the writer, kill it as <paramref name="plan"/> says, then check as <paramref name="reopen"/> says (if at all).</summary>
    private static async Task KillAndCheckAsync(string directory, long seed, SharedCrashWriterSettings settings, KillPlan plan, Reopen? reopen,
        CrashWorkloadModel[] models, TransactionBounds[] bounds, SharedCrashStatistics stats)
    {
        SharedCrashWriterOutcome outcome;
        using (var child = SharedCrashWriterProcess.Start(directory, seed, settings))
        {
            if (await child.KillAsPlannedAsync(plan, child.Started, StartTimeout) is { } startup)
                stats.RecordStartup(startup);
            outcome = await child.WaitForExitAsync(ExitTimeout);
        }
        stats.RecordKill(outcome, plan, settings.Storage with { GroupWritesInFlight = null } == Flushing, JournalNames(directory));
        if (!outcome.WasKilledCleanly)
            throw new XunitException($"the writer did not run until the kill: {outcome}");

        for (int k = 0; k < Environments; k++)
        {
            if (outcome.Start[k] is not { } start)
                continue;
            // The writer saw each database after recovering it itself: the same bounds hold there.
            if (bounds[k].ProblemWithStart(start) is { } problem)
            {
                stats.Lost[k] += Math.Max(0, bounds[k].HighestAcknowledged - start);
                throw new XunitException($"{Name(k)}: {problem}{System.Environment.NewLine}the killed writer: {outcome}");
            }
            bounds[k] = bounds[k].AfterWriter(outcome.HighestReported[k], settings.CallersOf(k));
        }
        if (reopen is not { } how)
            return;

        var checking = Stopwatch.StartNew();
        if (how == Reopen.AsGroup)
            await CheckAsGroupAsync(directory, settings.Storage, models, bounds, stats, outcome);
        else
        {
            int[] order = how == Reopen.RootFirstAlone ? [.. Enumerable.Range(0, Environments)] : [.. Enumerable.Range(1, Branches), 0];
            foreach (int k in order)
                CheckAlone(directory, k, settings.Storage, models, bounds, stats, outcome);
        }
        stats.RecordCheck(how.ToString(), checking.Elapsed);
    }

    /// <summary>
    /// Opens environment <paramref name="k"/> alone (<see cref="StorageEnvironment.Open"/>), checks it, commits a
    /// few more transactions into its own journal, checkpoints and closes it cleanly (its journal names go).
    /// </summary>
    private static void CheckAlone(string directory, int k, CrashWriterSettings storage, CrashWorkloadModel[] models, TransactionBounds[] bounds,
        SharedCrashStatistics stats, SharedCrashWriterOutcome outcome)
    {
        var env = OpenOrExplain(k, () => StorageEnvironment.Open(storage.ToStorageOptions(Directory(directory, k))));
        long last;
        try
        {
            last = Inspect(env, k, models, bounds, stats, outcome);
            for (long i = last + 1; i <= last + CommitsAfterRecovery; i++)
                Commit(env, models[k].Workload, i);
            env.Checkpoint();
            env.Verify();
            if (env.HasFailed)
                throw new XunitException($"{Name(k)} failed while working on from transaction {last}");
        }
        catch
        {
            env.SimulateProcessCrash(); // the check's own failure is the one to report
            throw;
        }
        env.Dispose();
        stats.CommittedAfterRecovery[k] += CommitsAfterRecovery;
        bounds[k] = new TransactionBounds(last + CommitsAfterRecovery, last + CommitsAfterRecovery);
    }

    /// <summary>
    /// Opens the root and every branch as a group again, checks each, commits a few transactions into all of
    /// them at once through the group (even environments through <c>BeginWrite</c>, odd ones through
    /// <c>WriteAsync</c>), verifies, and crashes the lot: the journals and links stay for the next writer.
    /// </summary>
    private static async Task CheckAsGroupAsync(string directory, CrashWriterSettings storage, CrashWorkloadModel[] models, TransactionBounds[] bounds,
        SharedCrashStatistics stats, SharedCrashWriterOutcome outcome)
    {
        var environments = new StorageEnvironment[Environments];
        try
        {
            environments[0] = OpenOrExplain(0, () => StorageEnvironment.Open(storage.ToStorageOptions(Directory(directory, 0))));
            for (int k = 1; k < Environments; k++)
                environments[k] = OpenOrExplain(k, () => environments[0].OpenBranch(storage.ToStorageOptions(Directory(directory, k))));
            var last = new long[Environments];
            for (int k = 0; k < Environments; k++)
                last[k] = Inspect(environments[k], k, models, bounds, stats, outcome);
            await Task.WhenAll(Enumerable.Range(0, Environments).Select(k => Task.Run(async () =>
            {
                var env = environments[k];
                var workload = models[k].Workload;
                for (long i = last[k] + 1; i <= last[k] + CommitsAfterRecovery; i++)
                {
                    if (k % 2 == 0)
                        Commit(env, workload, i);
                    else
                        await env.WriteAsync((Workload: workload, I: i), static (tx, s) => s.Workload.Apply(tx, s.I));
                }
            }))).WaitAsync(ExitTimeout);
            for (int k = 0; k < Environments; k++)
            {
                environments[k].Verify();
                if (environments[k].HasFailed || (k > 0 && !environments[k].SharesRootJournal))
                    throw new XunitException($"{Name(k)} failed or stopped sharing while working on from transaction {last[k]}");
                stats.CommittedAfterRecovery[k] += CommitsAfterRecovery;
                bounds[k] = new TransactionBounds(last[k] + CommitsAfterRecovery, last[k] + CommitsAfterRecovery);
            }
        }
        finally
        {
            // Branches first, as a host closes them; a crash either way, so every journal and link stays.
            for (int k = Environments - 1; k >= 0; k--)
                environments[k]?.SimulateProcessCrash();
        }
    }

    private static StorageEnvironment OpenOrExplain(int k, Func<StorageEnvironment> open)
    {
        try
        {
            return open();
        }
        catch (Exception e)
        {
            throw new XunitException($"{Name(k)} did not open: {e}");
        }
    }

    /// <summary>Checks <see cref="CrashInvariants"/> for environment <paramref name="k"/> and returns the last transaction it holds.</summary>
    private static long Inspect(StorageEnvironment env, int k, CrashWorkloadModel[] models, TransactionBounds[] bounds, SharedCrashStatistics stats,
        SharedCrashWriterOutcome outcome)
    {
        var result = CrashInvariants.Inspect(env, models[k], bounds[k].HighestAcknowledged, bounds[k].HighestPossible);
        stats.Lost[k] += result.Lost;
        if (result.Problems.Count > 0)
            throw new XunitException($"{Name(k)} (bounds {bounds[k]}):{System.Environment.NewLine}" + string.Join(System.Environment.NewLine, result.Problems) +
                $"{System.Environment.NewLine}the killed writer: {outcome}");
        stats.RecordChecked(k);
        return result.Last;
    }

    private static void Commit(StorageEnvironment env, CrashWorkload workload, long i)
    {
        using var tx = env.BeginWrite();
        workload.Apply(tx, i);
        tx.Commit();
    }

    /// <summary>The journal names each environment's folder holds now, with each file's link count.</summary>
    private static List<long>[] JournalNames(string directory)
    {
        var names = new List<long>[Environments];
        for (int k = 0; k < Environments; k++)
        {
            names[k] = [];
            string journals = Path.Combine(Directory(directory, k), JournalFileName.DirectoryName);
            if (!System.IO.Directory.Exists(journals))
                continue;
            foreach (var path in System.IO.Directory.GetFiles(journals, "*" + JournalFileName.Extension))
                names[k].Add(PalFileSystem.LinkCount(path));
        }
        return names;
    }

    /// <summary>Counts and timings of the run, for the test output (and the closing note).</summary>
    private sealed class SharedCrashStatistics(int environments)
    {
        private readonly Stopwatch _total = Stopwatch.StartNew();
        private readonly Dictionary<string, (int Count, TimeSpan Time)> _checks = [];
        private TimeSpan _startup;
        private int _starts;
        private int _killsDuringOpening;
        private int _flushingCycles;
        private int _maxBranchNames;
        private long _sharedBranchNames;
        private long _maxLinks;

        public int Cycles { get; private set; }
        public int Checks { get; private set; }
        public long[] Acknowledged { get; } = new long[environments];
        public long[] HighestTransaction { get; } = new long[environments];
        public long[] Lost { get; } = new long[environments];
        public long[] CommittedAfterRecovery { get; } = new long[environments];

        /// <summary>Per environment: checks by the parent.</summary>
        public int[] EnvironmentChecks { get; } = new int[environments];

        public void RecordKill(SharedCrashWriterOutcome outcome, KillPlan plan, bool flushing, List<long>[] names)
        {
            Cycles++;
            if (plan.DuringOpening)
                _killsDuringOpening++;
            if (flushing)
                _flushingCycles++;
            for (int k = 0; k < environments; k++)
            {
                Acknowledged[k] += outcome.Acknowledged[k];
                HighestTransaction[k] = Math.Max(HighestTransaction[k], outcome.HighestReported[k]);
                if (k > 0)
                {
                    _maxBranchNames = Math.Max(_maxBranchNames, names[k].Count);
                    _sharedBranchNames += names[k].Count(links => links > 1);
                }
                foreach (long links in names[k])
                    _maxLinks = Math.Max(_maxLinks, links);
            }
        }

        public void RecordStartup(TimeSpan elapsed)
        {
            _starts++;
            _startup += elapsed;
        }

        public void RecordChecked(int k) => EnvironmentChecks[k]++;

        public void RecordCheck(string how, TimeSpan elapsed)
        {
            Checks++;
            var (count, time) = _checks.GetValueOrDefault(how);
            _checks[how] = (count + 1, time + elapsed);
        }

        public IEnumerable<string> Summary()
        {
            var total = _total.Elapsed;
            yield return $"{Cycles} kill cycles ({Cycles} SIGKILLs, {_killsDuringOpening} aimed at opening; {_flushingCycles} flushing often, " +
                $"{Cycles - _flushingCycles} not flushing) in {total.TotalSeconds:F1} s ({Average(total, Cycles)} per cycle); " +
                $"child start-up to all 'start' lines {Average(_startup, _starts)} on average over {_starts}";
            yield return $"{Checks} parent checks: " + string.Join(", ", _checks.OrderBy(c => c.Key).Select(c => $"{c.Key} {c.Value.Count} ({Average(c.Value.Time, c.Value.Count)} each)")) +
                $"; {Cycles - Checks} cycles left recovery to the next writer";
            yield return $"acknowledged transactions per environment: " + PerEnvironment(Acknowledged) + $" ({Acknowledged.Sum()} in all)";
            yield return $"highest acknowledged transaction per environment: " + PerEnvironment(HighestTransaction);
            yield return $"environment checks (each: every acknowledged transaction present, none half-applied, no holes, Verify): " + PerEnvironment(EnvironmentChecks.Select(c => (long)c).ToArray());
            yield return $"committed by the parent after recovery: " + PerEnvironment(CommittedAfterRecovery) + $"; acknowledged transactions lost: {Lost.Sum()}";
            yield return $"journal names at the kills: at most {_maxBranchNames} in one branch's folder, {_sharedBranchNames} branch names of shared files in all, " +
                $"at most {_maxLinks} names of one file";
        }

        private static string PerEnvironment(long[] values) => string.Join(", ", values.Select((v, k) => $"{Name(k)} {v}"));

        private static string Average(TimeSpan total, int count) => count == 0 ? "n/a" : $"{total.TotalMilliseconds / count:F0} ms";
    }
}
