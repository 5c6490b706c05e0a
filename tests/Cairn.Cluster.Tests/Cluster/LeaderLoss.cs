namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Takes the leader of a group away: cut off from the rest, or stopped. Choosing the leader and taking it away are two
/// steps, and an election under load can fall between them, so that a follower is taken instead. It counts only when,
/// after it, every other running member is still in the term the leader was chosen in (terms only grow, so nobody
/// else was elected in between), and a cut-off leader still leads in it. Otherwise the step is undone and the leader
/// chosen again, a bounded number of times.
/// </summary>
internal static class LeaderLoss
{
    private const int Choices = 10;

    /// <summary>Partitions <paramref name="group"/> into its leader alone and the others; returns the leader cut off.</summary>
    public static Task<int> CutOffAsync(ClusterNodes cluster, IReadOnlyList<int> group) => TakeAsync(cluster, group,
        (leader, others) =>
        {
            cluster.Network.Partition([[leader], others]);
            return Task.CompletedTask;
        },
        (leader, term) => cluster[leader].IsLeader && cluster[leader].Term == term,
        _ =>
        {
            cluster.Network.Heal();
            return Task.CompletedTask;
        });

    /// <summary>Stops the leader of <paramref name="group"/>; returns the leader stopped.</summary>
    public static Task<int> StopAsync(ClusterNodes cluster, IReadOnlyList<int> group) => TakeAsync(cluster, group,
        (leader, _) => cluster.StopAsync(leader),
        (_, _) => true,
        cluster.RestartAsync);

    private static async Task<int> TakeAsync(ClusterNodes cluster, IReadOnlyList<int> group, Func<int, int[], Task> take,
        Func<int, long, bool> stillLeads, Func<int, Task> undo)
    {
        for (var choice = 1; ; choice++)
        {
            var leader = await cluster.LeaderOfAsync(group);
            var term = cluster[leader].Term;
            var others = group.Where(i => i != leader).ToArray();
            await take(leader, others);
            if (stillLeads(leader, term) && others.Where(cluster.IsRunning).All(i => cluster[i].Term == term))
                return leader;
            await undo(leader);
            Assert.True(choice < Choices, $"an election came between choosing the leader and taking it away {choice} times: {cluster.Describe()}");
        }
    }
}
