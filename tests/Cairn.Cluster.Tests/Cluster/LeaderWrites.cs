using Cairn.Cluster.Commands;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Writes a command on whichever node of a group leads, retrying it with its operation id (applied at most once) when
/// leadership moves under a loaded machine, until it is acknowledged; the hang deadline only turns a hang into a failure.
/// </summary>
internal static class LeaderWrites
{
    /// <summary>The acknowledgement, the slot of the leader that gave it, and whether an earlier attempt's outcome was unknown.</summary>
    public static async Task<LeaderWrite> WriteAsync(ClusterNodes cluster, IReadOnlyList<int> group, ClusterCommand command, CancellationToken deadline)
    {
        var unknown = false;
        while (true)
        {
            var leader = await cluster.LeaderOfAsync(group);
            try
            {
                return new LeaderWrite(await cluster[leader].WriteAsync(command, deadline), leader, unknown);
            }
            catch (NotClusterLeaderException) when (!deadline.IsCancellationRequested)
            {
                // Refused before its entry was appended: this attempt applied nothing.
            }
            catch (WriteOutcomeUnknownException) when (!deadline.IsCancellationRequested)
            {
                // Perhaps applied: the retry with the same id either applies the write or finds it applied (WasRetry).
                unknown = true;
            }
        }
    }
}

/// <summary>
/// A write acknowledged through <see cref="LeaderWrites"/>. When <paramref name="AfterUnknownOutcome"/> is set, an
/// earlier attempt may have applied the command, so the acknowledgement's <see cref="ClusterWriteResult.WasRetry"/>
/// may be true for a command sent once; otherwise it says what the caller's first sending did.
/// </summary>
internal readonly record struct LeaderWrite(ClusterWriteResult Written, int Leader, bool AfterUnknownOutcome);
