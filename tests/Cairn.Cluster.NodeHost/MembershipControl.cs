using System.Globalization;
using System.Net;

namespace Cairn.Cluster.NodeHost;

/// <summary>
/// The control port's membership requests, the only ones that change the cluster: <c>add ADDRESS</c> and
/// <c>remove ADDRESS</c> ask this node, which must lead, to add or remove that member, and answer one line:
/// <c>ok</c> (committed), <c>in-use</c> (an add of an id that is a member or was removed: an earlier add may have
/// committed), <c>not-leader</c>, <c>unknown</c> or <c>failed</c> with the reason (the test asks again, on the leader
/// it finds then). <c>members</c> answers the members this node knows, comma-separated; <c>installs</c> how many
/// snapshots this run of the node installed.
/// </summary>
internal static class MembershipControl
{
    // A change waits through DotNext's warm-up rounds and a snapshot install; only a hang takes this long.
    private static readonly TimeSpan ChangeCeiling = TimeSpan.FromMinutes(2);

    /// <summary>The answer to <paramref name="request"/> if it is one of these, else null.</summary>
    public static async Task<string?> TryAnswerAsync(ClusterNode node, string request)
    {
        if (request == ControlRequests.Members)
            return string.Join(',', node.Members) + "\n";
        if (request == ControlRequests.Installs)
            return node.SnapshotsInstalled.ToString(CultureInfo.InvariantCulture) + "\n";
        var parts = request.Split(' ');
        if (parts.Length != 2 || parts[0] is not (ControlRequests.AddMember or ControlRequests.RemoveMember))
            return null;
        if (!IPEndPoint.TryParse(parts[1], out var id) || id.Port == 0)
            return $"error: not an address with a port: '{parts[1]}'\n";
        using var ceiling = new CancellationTokenSource(ChangeCeiling);
        try
        {
            if (parts[0] == ControlRequests.AddMember)
                await node.AddMemberAsync(id, ceiling.Token);
            else
                await node.RemoveMemberAsync(id, ceiling.Token);
            return "ok\n";
        }
        catch (MemberIdInUseException)
        {
            return "in-use\n";
        }
        catch (NotClusterLeaderException)
        {
            return "not-leader\n";
        }
        catch (Exception e) when (e is MembershipChangeException or OperationCanceledException or ObjectDisposedException)
        {
            return $"{(e is MembershipChangeException { OutcomeKnown: true } ? "failed" : "unknown")}: {e.Message.ReplaceLineEndings(" | ")}\n";
        }
    }
}
