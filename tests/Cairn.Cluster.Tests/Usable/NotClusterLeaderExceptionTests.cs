using System.Net;

namespace Cairn.Cluster.Tests.Usable;

/// <summary>The refusal tells a client whom to ask: another node, or nobody yet; never the node that refused.</summary>
public sealed class NotClusterLeaderExceptionTests
{
    private static readonly IPEndPoint Refusing = new(IPAddress.Loopback, 7001);
    private static readonly IPEndPoint Other = new(IPAddress.Loopback, 7002);

    [Fact]
    public void A_refusal_names_the_leader_the_node_follows()
    {
        var refusal = new NotClusterLeaderException(Refusing, Other);
        Assert.Equal(Other, refusal.Leader);
        Assert.Equal($"Node {Refusing} is not the leader; it follows {Other}.", refusal.Message);
    }

    [Fact]
    public void A_leader_whose_leadership_just_ended_names_no_leader_rather_than_itself()
    {
        // DotNext names the node as leader until it has left the leader state; the caller must not be sent back to it.
        var refusal = new NotClusterLeaderException(Refusing, new IPEndPoint(IPAddress.Loopback, 7001));
        Assert.Null(refusal.Leader);
        Assert.Equal($"Node {Refusing} is not the leader; it knows no leader now.", refusal.Message);
    }

    [Fact]
    public void A_node_that_knows_no_leader_says_so()
    {
        var refusal = new NotClusterLeaderException(Refusing, null);
        Assert.Null(refusal.Leader);
        Assert.Equal($"Node {Refusing} is not the leader; it knows no leader now.", refusal.Message);
    }
}
