namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Cuts the leader of a group off from the rest of it. Choosing the leader and cutting are two steps, and an election
/// under load can fall between them, so that the cut takes a follower: the cut counts only when, after it, the chosen
/// node still leads in the term it was chosen in and every other running member is still in that term (terms only
/// grow, so nobody was elected in between). Otherwise it heals and chooses again, a bounded number of times.
/// </summary>
internal static class LeaderCut
{
    private const int Choices = 10;

    /// <summary>Partitions <paramref name="group"/> into its leader alone and the others; returns the leader cut off.</summary>
    public static async Task<int> CutOffAsync(ClusterNodes cluster, IReadOnlyList<int> group)
    {
        for (var choice = 1; ; choice++)
        {
            var leader = await cluster.LeaderOfAsync(group);
            var term = cluster[leader].Term;
            var others = group.Where(i => i != leader).ToArray();
            cluster.Network.Partition([[leader], others]);
            if (cluster[leader].IsLeader && cluster[leader].Term == term
                && others.Where(cluster.IsRunning).All(i => cluster[i].Term == term))
                return leader;
            cluster.Network.Heal();
            Assert.True(choice < Choices, $"an election came between choosing the leader and cutting it off {choice} times: {cluster.Describe()}");
        }
    }
}
