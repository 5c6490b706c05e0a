using System.Net;
using Cairn.Cluster;

namespace Cairn.Cli.Output;

/// <summary>What <c>cairn cluster status</c> shows (as text or JSON): each asked endpoint's answer, and the leader's view.</summary>
internal sealed record ClusterView(string? Leader, long? Term, long? LeaderCommitIndex, IReadOnlyList<EndpointView> Endpoints, IReadOnlyList<MemberView> LeaderMembers)
{
    public static ClusterView From(IEnumerable<(IPEndPoint Endpoint, ClusterNodeStatus? Status, string? Error)> answers)
    {
        var answered = answers.ToArray();
        // The node that says it leads in the highest term: an older leader that has not heard of the election yet
        // still says it leads, in its older term.
        var leader = answered.Where(a => a.Status is { IsLeader: true }).Select(a => a.Status!).MaxBy(s => s.Term);
        var endpoints = answered.Select(a => a.Status is { } s
            ? new EndpointView(a.Endpoint.ToString(), EndPointText.Format(s.Node), Role(s, leader), s.Term, s.Leader is { } l ? EndPointText.Format(l) : null,
                s.LastLogIndex, s.CommitIndex, s.AppliedIndex, leader is null ? null : Math.Max(0, leader.CommitIndex - s.AppliedIndex), null)
            : new EndpointView(a.Endpoint.ToString(), null, "unreachable", null, null, null, null, null, null, a.Error)).ToArray();
        var members = leader?.Members.Select(m => new MemberView(EndPointText.Format(m.EndPoint), m.EndPoint.Equals(leader.Node)
            ? "leader" : m.Reachable switch { true => "reachable", false => "unreachable", null => "not yet contacted" })).ToArray() ?? [];
        return new ClusterView(leader is null ? null : EndPointText.Format(leader.Node), leader?.Term, leader?.CommitIndex, endpoints, members);
    }

    private static string Role(ClusterNodeStatus status, ClusterNodeStatus? leader) => status switch
    {
        { IsLeader: true } when ReferenceEquals(status, leader) => "leader",
        { IsLeader: true } => "stale leader",
        { Leader: null } => "no leader",
        _ => "follower",
    };
}

/// <summary>One asked endpoint: its node's answer, or why there was none (<see cref="Error"/>).</summary>
internal sealed record EndpointView(string Endpoint, string? Node, string Role, long? Term, string? Follows, long? LastLogIndex, long? CommitIndex,
    long? AppliedIndex, long? BehindLeader, string? Error);

/// <summary>A member as the leader sees it.</summary>
internal sealed record MemberView(string Member, string State);
