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
        long endedTerm = 0;
        while (true)
        {
            var leader = await cluster.LeaderOfAsync(group, afterTerm: endedTerm);
            var term = cluster[leader].Term;
            try
            {
                await change(cluster[leader]);
                return leader;
            }
            catch (NotClusterLeaderException)
            {
                // Nothing changed; the leader of a later term is asked (LeaderOfAsync waits, with its ceiling, for one).
                endedTerm = term;
            }
        }
    }

    /// <summary>
    /// Runs <paramref name="change"/> on the leader of <paramref name="group"/> as <see cref="ChangeAsync"/> does and
    /// returns the refusal it must end with: the engine's answer, whichever node led when it was given.
    /// </summary>
    public static async Task<TRefusal> RefusedAsync<TRefusal>(ClusterNodes cluster, IReadOnlyList<int> group, Func<ClusterNode, Task> change)
        where TRefusal : Exception
    {
        TRefusal? refusal = null;
        await ChangeAsync(cluster, group, async node =>
        {
            try
            {
                await change(node);
            }
            catch (TRefusal answer) when (answer is not NotClusterLeaderException)
            {
                refusal = answer;
                return;
            }

            Assert.Fail($"the leader accepted what it must refuse with {typeof(TRefusal).Name}: {cluster.Describe()}");
        });
        return refusal!;
    }

    /// <summary>
    /// Runs <paramref name="change"/> on a member of <paramref name="group"/> that does not lead and returns its
    /// <see cref="NotClusterLeaderException"/>; when the member it picked was elected in between, it picks again.
    /// </summary>
    public static async Task<NotClusterLeaderException> RefusedByFollowerAsync(ClusterNodes cluster, IReadOnlyList<int> group, Func<ClusterNode, Task> change)
    {
        while (true)
        {
            var leader = await cluster.LeaderOfAsync(group);
            var follower = group.First(i => i != leader);
            try
            {
                await change(cluster[follower]);
            }
            catch (NotClusterLeaderException refusal)
            {
                return refusal;
            }
            catch (Exception) when (cluster[follower].IsLeader)
            {
                // Elected between the look and the call: the engine answered as a leader; ask a follower again.
                continue;
            }

            Assert.Fail($"node {follower}, a follower, accepted the change: {cluster.Describe()}");
        }
    }
}
