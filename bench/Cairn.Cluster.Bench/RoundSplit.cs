using Cairn.Cluster.Node;

namespace Cairn.Cluster.Bench;

/// <summary>
/// Where a replication round's time goes: the leader's and its followers' stage timestamps (<see cref="RoundRecorder"/>)
/// lined up by log index, one chain per leader entry: queued (its earliest command) -> sent -> leader appended ->
/// first follower received -> first follower flushed (with the leader, the majority) -> leader commit started ->
/// leader committed (DotNext's flush) -> leader apply started (DotNext's applier reached Cairn) -> leader applied -> replicate returned -> the entry's last caller resumed.
/// Also what each entry cost each node in flusher waits (a follower's append flush, a commit's flush).
/// </summary>
internal sealed class RoundSplit
{
    private static readonly (RoundStage Stage, bool Follower, string Name)[] Chain =
    [
        (RoundStage.Queued, false, "queued"),
        (RoundStage.Sent, false, "sent to Raft"),
        (RoundStage.LeaderAppended, false, "leader appended"),
        (RoundStage.FollowerReceived, true, "follower received"),
        (RoundStage.FollowerAppended, true, "follower appended"),
        (RoundStage.FollowerFlushed, true, "follower flushed"),
        (RoundStage.CommitStarted, false, "leader commit started"),
        (RoundStage.Committed, false, "leader committed (flushed)"),
        (RoundStage.ApplyStarted, false, "leader apply started"),
        (RoundStage.Applied, false, "leader applied"),
        (RoundStage.ReplicateReturned, false, "replicate returned"),
        (RoundStage.CallerCompleted, false, "caller resumed"),
    ];

    private readonly List<double>[] steps = Chain.Select(_ => new List<double>()).ToArray(); // ms from the stage before
    private readonly List<double> totals = []; // ms from queued to the last caller resumed
    private long entries;
    private long followerFlushes;
    private long commits; // DotNext commits that covered entries (each waits on the flusher only past the flushed index)
    private int followerCount;

    /// <summary>Adds one run: the leader's events and each follower's.</summary>
    public void Add(RoundEvent[] leader, IReadOnlyList<RoundEvent[]> followers)
    {
        followerCount = followers.Count;
        var sent = leader.Where(e => e.Stage == RoundStage.Sent).Select(e => e.First).Distinct().ToArray();
        entries += sent.Length;
        followerFlushes += followers.Sum(f => f.Count(e => e.Stage == RoundStage.FollowerFlushed));
        commits += followers.Append(leader).Sum(f => f.Count(e => e.Stage == RoundStage.Committed && e.Last >= e.First));
        foreach (var index in sent)
        {
            var times = new long?[Chain.Length];
            for (var s = 0; s < Chain.Length; s++)
            {
                var (stage, follower, _) = Chain[s];
                times[s] = follower ? followers.Select(f => First(f, stage, index)).Where(t => t is not null).Min()
                    : stage is RoundStage.CallerCompleted ? Last(leader, stage, index) : First(leader, stage, index);
            }

            if (times.Any(t => t is null))
                continue; // a round cut by the run's end or a leader change: not a whole chain
            for (var s = 1; s < Chain.Length; s++)
                steps[s].Add(Measure.Milliseconds(times[s]!.Value - times[s - 1]!.Value));
            totals.Add(Measure.Milliseconds(times[^1]!.Value - times[0]!.Value));
        }
    }

    public void Print(int callers)
    {
        Console.WriteLine($"  {callers} callers: {totals.Count} whole rounds of {entries} entries; per entry: {followerFlushes / (double)Math.Max(1, entries) / Math.Max(1, followerCount):F2} follower append flushes per follower, {commits / (double)Math.Max(1, entries) / (followerCount + 1):F2} log commits per node (a commit flushes only past the flushed index)");
        Console.WriteLine($"    {"stage (ms since the one before)",-34} {"p50",8} {"p90",8}");
        for (var s = 1; s < Chain.Length; s++)
            Console.WriteLine($"    {Chain[s].Name,-34} {Measure.Percentile(steps[s], 0.5),8:F2} {Measure.Percentile(steps[s], 0.9),8:F2}");
        Console.WriteLine($"    {"total: queued -> last caller",-34} {Measure.Percentile(totals, 0.5),8:F2} {Measure.Percentile(totals, 0.9),8:F2}");
    }

    private static long? First(RoundEvent[] events, RoundStage stage, long index) => Covering(events, stage, index).Min();

    private static long? Last(RoundEvent[] events, RoundStage stage, long index) => Covering(events, stage, index).Max();

    private static IEnumerable<long?> Covering(RoundEvent[] events, RoundStage stage, long index)
        => events.Where(e => e.Stage == stage && e.First <= index && index <= e.Last).Select(e => (long?)e.Timestamp);
}
