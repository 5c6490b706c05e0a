using Cairn.Cluster.Commands;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Writes a command on whichever node of a group leads, retrying it with its operation id (applied at most once) when
/// leadership moves under a loaded machine, until it is acknowledged; the hang deadline only turns a hang into a failure.
/// </summary>
internal static class LeaderWrites
{
    /// <summary>The acknowledgement, and the slot of the leader that gave it.</summary>
    public static async Task<(ClusterWriteResult Written, int Leader)> WriteAsync(ClusterNodes cluster, IReadOnlyList<int> group, ClusterCommand command, CancellationToken deadline)
    {
        while (true)
        {
            var leader = await cluster.LeaderOfAsync(group);
            try
            {
                return (await cluster[leader].WriteAsync(command, deadline), leader);
            }
            catch (Exception e) when (e is WriteOutcomeUnknownException or NotClusterLeaderException && !deadline.IsCancellationRequested)
            {
                // Leadership moved: the retry with the same id either applies the write or answers with its original index.
            }
        }
    }
}
