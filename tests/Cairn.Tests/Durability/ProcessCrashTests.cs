using System.Diagnostics;
using System.Globalization;
using Cairn.TestChild;
using Cairn.Tests.Support;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Cairn.Tests.Durability;

/// <summary>
/// A child process commits <see cref="CrashWorkload"/> transactions and acknowledges each after its
/// commit returns; the parent SIGKILLs it at random moments, reopens the database and checks
/// <see cref="CrashInvariants"/>: every acknowledged transaction present, none half-applied, no holes,
/// and <see cref="StorageEnvironment.Verify"/> passing. Then the recovered environment must work, not
/// only read: it commits the next transactions, checkpoints, verifies and closes cleanly. Half the
/// cycles run a writer that never flushes (every kill before its first flush, so the next open
/// recovers everything from the journals), half one that flushes and syncs every few milliseconds.
/// </summary>
/// <remarks>
/// <c>CAIRN_CRASH_CYCLES</c> sets the number of kill cycles (default 200: about 350 ms each, 70 s, on 2 cores);
/// <c>CAIRN_CRASH_SEED</c> replays a workload (every failure message names the seed it ran with;
/// the kill moments themselves depend on timing and cannot be replayed exactly).
/// </remarks>
public class ProcessCrashTests(ITestOutputHelper output)
{
    private const int DefaultCycles = 200;
    private const int DefaultMergerCycles = 100;
    private const int DefaultLargeCycles = 60;
    // Enough after each recovery to reallocate what replay recovered (ten were fine, twenty failed, issue 11).
    private const int CommitsAfterRecovery = 25;
    private static readonly TimeSpan StartTimeout = TimeSpan.FromMinutes(1);
    private static readonly TimeSpan ExitTimeout = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task Every_acknowledged_transaction_survives_SIGKILL_and_nothing_is_half_applied()
    {
        int cycles = checked((int)Setting("CAIRN_CRASH_CYCLES", DefaultCycles));
        await RunKillCyclesAsync("process-crash", "CAIRN_CRASH_CYCLES", cycles, FlushingOrNot);
    }

    /// <summary>
    /// The kill cycles with large values (runs of 5 to 50 pages, freed and reallocated in other shapes),
    /// single writer and merger callers alternating. <c>CAIRN_CRASH_LARGE_CYCLES</c> sets the number (default 60).
    /// </summary>
    [Fact]
    public async Task Every_acknowledged_transaction_of_large_values_survives_SIGKILL()
    {
        int cycles = checked((int)Setting("CAIRN_CRASH_LARGE_CYCLES", DefaultLargeCycles));
        await RunKillCyclesAsync("process-crash-large", "CAIRN_CRASH_LARGE_CYCLES", cycles,
            random => FlushingOrNot(random) with { LargeValues = 1, Callers = random.Next(2) == 0 ? null : 16 }, largeValues: true);
    }

    private static CrashWriterSettings FlushingOrNot(Random random)
        => random.Next(2) == 0 ? CrashWriterSettings.Aggressive : CrashWriterSettings.NeverFlushing;

    /// <summary>
    /// The same kill cycles with the writer's transactions submitted through the transaction merger by 16
    /// to 64 concurrent callers (a different number each cycle): every acknowledged operation survives.
    /// <c>CAIRN_CRASH_MERGER_CYCLES</c> sets the number of cycles (default 100).
    /// </summary>
    [Fact]
    public async Task Every_operation_acknowledged_by_the_merger_survives_SIGKILL()
    {
        int cycles = checked((int)Setting("CAIRN_CRASH_MERGER_CYCLES", DefaultMergerCycles));
        await RunKillCyclesAsync("process-crash-merger", "CAIRN_CRASH_MERGER_CYCLES", cycles,
            random => FlushingOrNot(random) with { Callers = new[] { 16, 32, 64 }[random.Next(3)] });
    }

    /// <summary>Kill, reopen and check <paramref name="cycles"/> times; <paramref name="settingsFor"/> picks each cycle's writer.</summary>
    private async Task RunKillCyclesAsync(string name, string cyclesVariable, int cycles, Func<Random, CrashWriterSettings> settingsFor,
        bool largeValues = false)
    {
        long seed = Setting("CAIRN_CRASH_SEED", Random.Shared.NextInt64(1, 1_000_000_000));
        string replay = $"replay with CAIRN_CRASH_SEED={seed} {cyclesVariable}={cycles}";
        output.WriteLine($"seed {seed}, {cycles} cycles");

        using var dir = new TestDirectory(name);
        var model = new CrashWorkloadModel(new CrashWorkload(seed, largeValues));
        var random = new Random(unchecked((int)seed ^ (int)(seed >> 32)));
        var stats = new CrashRunStatistics();
        var bounds = new TransactionBounds(0, 0);
        var callerCounts = new List<int>();
        try
        {
            for (int cycle = 1; cycle <= cycles; cycle++)
            {
                var settings = settingsFor(random);
                if (settings.Callers is { } callers)
                    callerCounts.Add(callers);
                var plan = KillPlan.Choose(random, lastCycle: cycle == cycles);
                try
                {
                    bounds = await KillAndCheckAsync(dir.Path, seed, settings, plan, model, bounds, stats);
                }
                catch (Exception e)
                {
                    string writer = (settings.Callers is { } n ? $", {n} callers through the merger" : "") +
                        (settings.MaxFlushDelayMilliseconds == CrashWriterSettings.NeverFlushing.MaxFlushDelayMilliseconds ? ", never flushing" : ", flushing often");
                    throw new XunitException($"cycle {cycle} of {cycles} ({plan}{writer}), seed {seed}: {e.Message}{System.Environment.NewLine}{replay}", e);
                }
            }
        }
        finally
        {
            output.WriteLine(stats.Summary());
            if (callerCounts.Count > 0)
                output.WriteLine($"callers per cycle: {string.Join(", ", callerCounts.GroupBy(c => c).OrderBy(g => g.Key).Select(g => $"{g.Key} x{g.Count()}"))}");
        }
        Assert.Equal(0, stats.Lost);
        Assert.Equal(0, stats.FailedEnvironments);
    }

    [Fact]
    public async Task A_writer_that_stops_cleanly_keeps_every_acknowledged_transaction()
    {
        long seed = Setting("CAIRN_CRASH_SEED", Random.Shared.NextInt64(1, 1_000_000_000));
        using var dir = new TestDirectory("process-clean-stop");
        var settings = CrashWriterSettings.Aggressive;
        var model = new CrashWorkloadModel(new CrashWorkload(seed));
        long last = 0;
        // Three runs of 250 reach past transaction 388, where the first extra tree is deleted again.
        for (int run = 1; run <= 3; run++)
        {
            CrashWriterOutcome outcome;
            using (var child = CrashWriterProcess.Start(dir.Path, seed, settings))
            {
                Assert.Equal(last, await StartedAsync(child));
                await child.WaitForAcknowledgedAsync(250).WaitAsync(StartTimeout);
                child.RequestStop();
                outcome = await child.WaitForExitAsync(ExitTimeout);
            }
            Assert.True(outcome.ExitCode == 0 && outcome.ProtocolErrors.Count == 0 && outcome.Stopped == outcome.HighestReported,
                $"seed {seed}, run {run}: the writer did not stop cleanly: {outcome}");

            using var env = StorageEnvironment.Open(settings.ToStorageOptions(dir.Path));
            last = CrashInvariants.Check(env, model, outcome.HighestReported, outcome.HighestReported);
        }
        output.WriteLine($"seed {seed}: three clean stops, database at transaction {last}");
    }

    /// <summary>
    /// One cycle: start a writer, kill it as <paramref name="plan"/> says, then (if planned) reopen and
    /// check. Returns the bounds the database must now satisfy.
    /// </summary>
    private static async Task<TransactionBounds> KillAndCheckAsync(string directory, long seed, CrashWriterSettings settings, KillPlan plan,
        CrashWorkloadModel model, TransactionBounds bounds, CrashRunStatistics stats)
    {
        CrashWriterOutcome outcome;
        using (var child = CrashWriterProcess.Start(directory, seed, settings))
        {
            if (await child.KillAsPlannedAsync(plan, child.Started, StartTimeout) is { } startup)
                stats.RecordStartup(startup);
            outcome = await child.WaitForExitAsync(ExitTimeout);
        }
        stats.RecordCycle(outcome);
        if (outcome.ExitCode != CrashWriterProcess.KilledExitCode || outcome.Stopped is not null || outcome.ProtocolErrors.Count > 0)
            throw new XunitException($"the writer did not run until the kill: {outcome}");

        if (outcome.Start is { } start)
        {
            // The writer saw the database after recovering it itself: the same bounds hold there.
            if (bounds.ProblemWithStart(start) is { } problem)
            {
                stats.Lost += Math.Max(0, bounds.HighestAcknowledged - start);
                throw new XunitException(problem);
            }
            // One transaction in flight for a single writer, one per caller through the merger.
            bounds = bounds.AfterWriter(outcome.HighestReported, settings.Callers ?? 1);
        }

        if (!plan.CheckAfterwards)
            return bounds;

        var checking = Stopwatch.StartNew();
        var env = StorageEnvironment.Open(settings.ToStorageOptions(directory));
        long last;
        try
        {
            var result = CrashInvariants.Inspect(env, model, bounds.HighestAcknowledged, bounds.HighestPossible);
            stats.Lost += result.Lost;
            if (result.Problems.Count > 0)
                throw new XunitException(string.Join(System.Environment.NewLine, result.Problems) +
                    $"{System.Environment.NewLine}the killed writer: {outcome}");
            last = WorkAfterRecovery(env, model.Workload, result.Last, stats);
        }
        catch
        {
            try
            {
                env.Dispose();
            }
            catch (Exception)
            {
                // The check's own failure is the one to report.
            }
            throw;
        }
        try
        {
            env.Dispose();
        }
        catch (Exception e)
        {
            stats.FailedEnvironments++;
            throw new XunitException($"the recovered environment did not close cleanly: {e}");
        }
        stats.RecordCheck(checking.Elapsed);
        // The check closes the environment cleanly at L, so L is both what the next writer must find and all it can find.
        return new TransactionBounds(last, last);
    }

    /// <summary>
    /// The recovered environment commits the next transactions, flushes and syncs them (a checkpoint),
    /// and must verify and still be healthy; returns the last transaction it now holds.
    /// </summary>
    private static long WorkAfterRecovery(StorageEnvironment env, CrashWorkload workload, long last, CrashRunStatistics stats)
    {
        try
        {
            for (long i = last + 1; i <= last + CommitsAfterRecovery; i++)
            {
                using var tx = env.BeginWrite();
                workload.Apply(tx, i);
                tx.Commit();
            }
            env.Checkpoint();
            env.Verify();
        }
        catch (Exception e)
        {
            stats.FailedEnvironments++;
            throw new XunitException($"the recovered environment failed while working on from transaction {last}: {e}");
        }
        if (env.HasFailed)
        {
            stats.FailedEnvironments++;
            throw new XunitException($"the recovered environment failed while working on from transaction {last}");
        }
        stats.CommittedAfterRecovery += CommitsAfterRecovery;
        return last + CommitsAfterRecovery;
    }

    private static async Task<long> StartedAsync(CrashWriterProcess child)
    {
        await child.AwaitOrExplainAsync(child.Started, StartTimeout);
        return await child.Started;
    }

    /// <summary>An environment variable's number (a crash campaign's size or seed), or <paramref name="fallback"/> when it is not set.</summary>
    internal static long Setting(string name, long fallback)
    {
        var text = System.Environment.GetEnvironmentVariable(name);
        return string.IsNullOrWhiteSpace(text) ? fallback : long.Parse(text, CultureInfo.InvariantCulture);
    }
}
