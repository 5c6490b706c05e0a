namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// A membership call made as an operator makes it: on whichever node of the group leads, asked again on the new
/// leader when the node answers <see cref="NotClusterLeaderException"/> (nothing changed: ask the leader). Any other
/// answer is the engine's and reaches the test.
/// </summary>
internal static class ThroughLeader
{
    /// <summary>Runs <paramref name="change"/> on the leader of <paramref name="group"/>; returns the leader that completed it.</summary>
    public static async Task<int> ChangeAsync(ClusterNodes cluster, IReadOnlyList<int> group, Func<ClusterNode, Task> change)
    {
        while (true)
        {
            var leader = await cluster.LeaderOfAsync(group);
            try
            {
                await change(cluster[leader]);
                return leader;
            }
            catch (NotClusterLeaderException)
            {
                // Nothing changed; the next leader is asked (LeaderOfAsync waits, with its ceiling, for one).
            }
        }
    }
}
