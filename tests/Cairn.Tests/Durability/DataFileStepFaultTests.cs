using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// Every write, sync and growth of the data file fails in turn, once per run: creation (the temporary
/// file's pages and both header copies), growth (granting part of the space first, as a full disk
/// does), flushes, header writes and the catch-up of the older copy at checkpoints and at close. Each run stops at the first error, closes, and a reopen must hold every
/// acknowledged transaction and nothing half of another, verify, take writes and close cleanly: the rule
/// of docs/design.md, "What a crash or an error may leave in the data file".
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class DataFileStepFaultTests(ITestOutputHelper output) : IDisposable
{
    private const int ENOSPC = 28;
    private const int EIO = 5;
    private const int Transactions = 14;

    public void Dispose() => PalFaultInjection.Disarm();

    public static TheoryData<string> Faults => ["write ENOSPC", "write EIO", "zero-byte write", "sync EIO", "sync ENOSPC", "allocate ENOSPC", "allocate EIO"];

    /// <summary>
    /// Where each fault must have stopped some run. A growth that finds the disk full is retried with only
    /// the pages the flush needs, so after creation (which asks for exactly what it needs) a one-off
    /// ENOSPC in growth stops nothing: the reopen checks still run for every position.
    /// </summary>
    private static string[] StepsThatMustFail(string fault) => fault switch
    {
        "allocate ENOSPC" => ["open"],
        "allocate EIO" => ["open", "checkpoint"],
        _ => ["open", "checkpoint", "close"],
    };

    [Theory]
    [MemberData(nameof(Faults))]
    public void Failing_each_data_file_write_or_sync_in_turn_loses_nothing_acknowledged(string fault)
    {
        // Every write syscall of a fault-free run, journals included, bounds the data file's writes and syncs.
        long calls = CountWriteCalls();
        int failedRuns = 0;
        var failures = new Dictionary<string, int>();
        for (int after = 0; after <= calls; after++)
        {
            using var dir = new TestDirectory($"step-fault-{fault.Replace(' ', '-')}-{after}");
            Arm(fault, after, Path.Combine(dir.Path, StorageEnvironment.DataFileName));
            var run = RunScenario(dir.Path);
            PalFaultInjection.Disarm();
            string where = $"{fault} at data-file call {after}: {run.Failure?.GetType().Name} {run.Failure?.Message}";
            if (run.Failure is not null)
            {
                failedRuns++;
                Assert.True(run.Failure is PalIOException or EnvironmentFailedException, $"{where}: not a typed I/O failure: {run.Failure}");
                string kind = $"{run.FailedStep}: {run.Failure.GetType().Name}";
                failures[kind] = failures.GetValueOrDefault(kind) + 1;
            }
            CheckAfterReopen(dir.Path, run.Acknowledged, where);
        }
        output.WriteLine($"{fault}: {calls + 1} runs, {failedRuns} stopped by the fault; " +
            string.Join(", ", failures.OrderBy(f => f.Key).Select(f => $"{f.Key} x{f.Value}")));
        // Creation, checkpoints and the close each write and sync the data file: each must have had its turn.
        foreach (var step in StepsThatMustFail(fault))
            Assert.Contains(failures.Keys, k => k.StartsWith(step, StringComparison.Ordinal));
    }

    private static void Arm(string fault, long after, string dataPath)
    {
        switch (fault)
        {
            case "write ENOSPC": PalFaultInjection.Arm(PalFaultKind.WriteError, after, osError: ENOSPC, pathFilter: dataPath); break;
            case "write EIO": PalFaultInjection.Arm(PalFaultKind.WriteError, after, osError: EIO, pathFilter: dataPath); break;
            case "zero-byte write": PalFaultInjection.Arm(PalFaultKind.ZeroWrite, after, pathFilter: dataPath); break;
            case "sync EIO": PalFaultInjection.Arm(PalFaultKind.SyncError, after, osError: EIO, pathFilter: dataPath); break;
            case "sync ENOSPC": PalFaultInjection.Arm(PalFaultKind.SyncError, after, osError: ENOSPC, pathFilter: dataPath); break;
            // The file system grants 4 KiB (half a page) before it fails, leaving a size that is no whole number of pages.
            case "allocate ENOSPC": PalFaultInjection.Arm(PalFaultKind.AllocateError, after, limit: 4096, osError: ENOSPC, pathFilter: dataPath); break;
            case "allocate EIO": PalFaultInjection.Arm(PalFaultKind.AllocateError, after, limit: 4096, osError: EIO, pathFilter: dataPath); break;
            default: throw new ArgumentOutOfRangeException(nameof(fault), fault, null);
        }
    }

    [Fact]
    public void Short_writes_everywhere_in_the_data_file_change_nothing()
    {
        using var dir = new TestDirectory("step-fault-short");
        // Every write of the data file and its temporary twin returns after 4 KiB: the write loops must finish each.
        PalFaultInjection.Arm(PalFaultKind.ShortWrite, limit: 4096, pathFilter: Path.Combine(dir.Path, StorageEnvironment.DataFileName));
        var run = RunScenario(dir.Path);
        PalFaultInjection.Disarm();
        Assert.Null(run.Failure);
        Assert.Equal(Transactions, run.Acknowledged);
        CheckAfterReopen(dir.Path, Transactions, "short writes");
    }

    private static long CountWriteCalls()
    {
        using var dir = new TestDirectory("step-fault-count");
        long before = PalFaultInjection.WriteCalls;
        var run = RunScenario(dir.Path);
        Assert.Null(run.Failure);
        return PalFaultInjection.WriteCalls - before;
    }

    private sealed record Run(int Acknowledged, string FailedStep, Exception? Failure);

    /// <summary>Creates an environment, commits (values large enough to grow the file), checkpoints every few, closes; stops at the first error.</summary>
    private static Run RunScenario(string path)
    {
        int acknowledged = 0;
        string step = "open";
        StorageEnvironment? env = null;
        Exception? failure = null;
        try
        {
            env = StorageEnvironment.Open(Options(path));
            for (int i = 1; i <= Transactions; i++)
            {
                step = "commit";
                Commit(env, i);
                acknowledged = i;
                if (i % 4 == 0)
                {
                    step = "checkpoint";
                    env.Checkpoint();
                }
            }
        }
        catch (Exception e)
        {
            failure = e;
        }
        try
        {
            env?.Dispose();
        }
        catch (Exception e) when (failure is null)
        {
            failure = e;
            step = "close";
        }
        catch (Exception)
        {
            // The environment had failed already; closing reports it again.
        }
        return new Run(acknowledged, step, failure);
    }

    private static void CheckAfterReopen(string path, int acknowledged, string where)
    {
        int last;
        using (var env = StorageEnvironment.Open(Options(path)))
        {
            last = ReadAll(env, where);
            // The failing commit may have reached its journal; nothing past it can exist.
            Assert.True(last == acknowledged || last == acknowledged + 1, $"{where}: {acknowledged} acknowledged, the reopened database holds {last}");
            env.Verify();
            Commit(env, last + 1);
            Commit(env, last + 2);
            env.Checkpoint();
            Assert.False(env.HasFailed, where);
        }
        using var again = StorageEnvironment.Open(Options(path));
        Assert.Equal(last + 2, ReadAll(again, where));
        again.Verify();
    }

    private static StorageOptions Options(string path) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        PrepareSpareJournals = false,
        LockWaitTimeout = TimeSpan.FromSeconds(5),
    };

    private static int ValueLength(int i) => i % 3 == 0 ? 100_000 : 300;

    private static void Commit(StorageEnvironment env, int i)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Bytes.Key(i), Bytes.Value(i, ValueLength(i)));
        tx.Commit();
    }

    /// <summary>The keys must be exactly 1..L with their values; returns L.</summary>
    private static int ReadAll(StorageEnvironment env, string where)
    {
        using var tx = env.BeginRead();
        if (!tx.TryOpenTree("t", out var tree))
            return 0;
        int count = (int)tree.Count;
        for (int i = 1; i <= count; i++)
            Assert.True(tree.TryGet(Bytes.Key(i), out var value) && value.SequenceEqual(Bytes.Value(i, ValueLength(i))),
                $"{where}: key {i} of {count} is missing or wrong");
        return count;
    }
}
