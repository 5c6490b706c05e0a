using System.Text;
using Cairn.Cluster.Tests.Linearizability;
using Cairn.Cluster.Tests.Nemesis.Disks;
using Cairn.Cluster.Tests.Nemesis.Schedule;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>What one campaign did and found.</summary>
public sealed record CampaignReport(int Seed, int Events, int Operations, int Acknowledged, int AcknowledgedWrites, int Unknown, Verdict Verdict, bool Disks, TimeSpan Elapsed)
{
    /// <summary>Events of each kind, e.g. <c>kill 5, restart 4, ...</c>.</summary>
    public string EventKinds { get; init; } = "";

    /// <summary>Members removed and fresh nodes added (a replaced dead member counts once in each).</summary>
    public int Removed { get; init; }

    public int RemovedLeaders { get; init; }

    public int Added { get; init; }

    public int AddedBySnapshot { get; init; }

    /// <summary>Of the unknowns, the operations that gave up while clients still ran (no leader served them for 30 s).</summary>
    public int GaveUp { get; init; }

    /// <summary>Snapshots installed by any node during the campaign (at least: a run killed just after an install may not have reported it).</summary>
    public long SnapshotInstalls { get; init; }

    public override string ToString()
        => $"seed {Seed}: {Events} nemesis events{(Disks ? " (disks)" : "")} ({EventKinds}), {Operations} operations ({Acknowledged} acknowledged, "
            + $"{AcknowledgedWrites} of them writes, {Unknown} unknown, {GaveUp} of them given up mid-campaign), 0 acknowledged writes lost, history {Verdict}, "
            + $"{Removed} members removed ({RemovedLeaders} leading) and {Added} added ({AddedBySnapshot} caught up by snapshot), {SnapshotInstalls} snapshot installs, "
            + $"3 nodes converged and verified, {Elapsed.TotalSeconds:F0} s";
}

/// <summary>
/// One nemesis campaign on three node processes: clients write and read while a seeded schedule kills (SIGKILL),
/// restarts, pauses (SIGSTOP/SIGCONT), partitions (drop both ways, one way, delay), removes members and adds fresh
/// ones (without disks) and, with disks, fills the nodes' disks, keeping a majority healthy. The nodes compact their
/// logs every <see cref="SnapshotInterval"/> entries, so restarted and added nodes install snapshots. Then
/// everything healed: the members must agree on who they are and converge to one dump holding every acknowledged
/// write, each must verify clean, and the history must be linearizable.
/// </summary>
internal static class NemesisCampaign
{
    private const int Nodes = 3;
    private const int Clients = 3;

    // Per event, the clients' work before the next: at least this many operations finish (whatever their outcome).
    private const int OperationsPerEvent = 4;

    // Small, so that a campaign's few hundred writes move the snapshot point many times and a node down for a few
    // events (or a fresh one) needs entries the leader has compacted.
    private const long SnapshotInterval = 8;

    // One fresh node per six events: membership events are then about as frequent as each other kind.
    private static int FreshNodesFor(int events) => events / 6;

    public static async Task<CampaignReport> RunAsync(string folder, int seed, int events, IReadOnlyList<NodeDisk>? disks, Action<string> output)
    {
        try
        {
            return await RunKeptAsync(folder, seed, events, disks, output);
        }
        catch (Exception failure)
        {
            // The test's folder is deleted with it: the logs, the nemesis log and the history outlive a failure here.
            var kept = Keep(folder, "nemesis-failures", seed);
            output($"seed {seed} FAILED; its node logs, nemesis log and history are kept in {kept}");
            throw new CampaignFailedException(seed, kept, failure);
        }
    }

    /// <summary>Copies the campaign's node output, nemesis log and history out of its test folder, which is deleted with it.</summary>
    private static string Keep(string folder, string under, int seed)
    {
        var kept = Path.Combine(Cairn.Tests.Support.TestDirectory.RepositoryRoot, ".scratch", under, $"seed{seed}-{DateTime.UtcNow:yyyyMMdd-HHmmss}");
        CopyTextFiles(folder, kept);
        return kept;
    }

    private static void CopyTextFiles(string from, string to)
    {
        foreach (var file in Directory.EnumerateFiles(from, "*", SearchOption.AllDirectories)
            .Where(f => Path.GetExtension(f) is ".log" or ".txt" or ".stdout" or ".stderr"))
        {
            var target = Path.Combine(to, Path.GetRelativePath(from, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }

    private static async Task<CampaignReport> RunKeptAsync(string folder, int seed, int events, IReadOnlyList<NodeDisk>? disks, Action<string> output)
    {
        var started = System.Diagnostics.Stopwatch.StartNew();
        Directory.CreateDirectory(folder);
        var options = new NemesisScheduleOptions(Nodes, (Nodes - 1) / 2, events, disks is not null) { FreshNodes = disks is null ? FreshNodesFor(events) : 0 };
        var schedule = NemesisScheduleGenerator.Generate(options, seed);
        var log = new NemesisEventLog(Path.Combine(folder, "nemesis.log"));
        await using var cluster = await ProcessCluster.StartAsync(folder, Nodes, disks, options.FreshNodes, SnapshotInterval);
        var workload = new CampaignWorkload(cluster, Clients, seed);
        try
        {
            var runner = new NemesisRunner(cluster, log);
            await runner.RunAsync(schedule, async _ =>
            {
                var before = workload.Completed;
                await Eventually.HoldsAsync(() =>
                {
                    cluster.ThrowIfAnyExited();
                    return workload.Completed >= before + OperationsPerEvent;
                }, () => $"{OperationsPerEvent} operations after the event ({workload.Completed - before} done): {log.Tail(5)}");
            });
        }
        finally
        {
            await workload.StopAsync();
            File.WriteAllText(Path.Combine(folder, "history.txt"), HistoryText.Write(workload.Recorder.ToHistory()));
        }

        var history = workload.Recorder.ToHistory();
        await cluster.MembershipAgreesAsync();
        var dump = await cluster.ConvergedDumpAsync();
        await cluster.VerifyAllAsync();

        var lost = workload.Acknowledged.Where(marker => !dump.Contains($"{CampaignWorkload.Tree} {Convert.ToHexString(marker)}=", StringComparison.Ordinal)).ToArray();
        Assert.True(lost.Length == 0, $"seed {seed}: {lost.Length} acknowledged writes are on no node: {string.Join(", ", lost.Take(10).Select(Encoding.UTF8.GetString))}; {log.Tail()}");
        var result = LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance);
        Assert.True(result.Verdict == Verdict.Linearizable, $"seed {seed}: {result.Explain()}\nhistory: {folder}/history.txt\n{log.Tail()}");

        var ops = history.Operations;
        var report = new CampaignReport(seed, schedule.Count, ops.Count,
            ops.Count(op => op.Completion.Outcome == Outcome.Ok),
            workload.Acknowledged.Count,
            ops.Count(op => op.Completion.Outcome == Outcome.Unknown),
            result.Verdict, disks is not null, started.Elapsed)
        {
            EventKinds = string.Join(", ", schedule.GroupBy(e => e.Action).OrderBy(g => g.Key).Select(g => $"{g.Key.ToString().ToLowerInvariant()} {g.Count()}")),
            Removed = cluster.Removed,
            RemovedLeaders = cluster.RemovedLeaders,
            Added = cluster.Added,
            AddedBySnapshot = cluster.AddedBySnapshot,
            SnapshotInstalls = await cluster.SnapshotInstallsAsync(),
            GaveUp = workload.GaveUp,
        };
        // Not a failure (nothing acknowledged was lost), but a stretch with no leader serving for 30 s wants a look.
        if (workload.GaveUp > 0)
            output($"seed {seed}: {workload.GaveUp} operations gave up mid-campaign; files kept in {Keep(folder, "nemesis-stalls", seed)}");
        output($"{report}; {cluster.FailStopRestarts} fail-stopped node runs started again");
        return report;
    }
}

/// <summary>A campaign failed; <see cref="KeptIn"/> holds its nodes' output, the nemesis log and the history.</summary>
public sealed class CampaignFailedException(int seed, string keptIn, Exception failure)
    : Exception($"Nemesis campaign seed {seed} failed (files kept in {keptIn}): {failure.Message}", failure)
{
    public string KeptIn { get; } = keptIn;
}
