namespace Cairn.Cluster.Tests.Cluster;

/// <summary>What a client waits between rounds by default, against what a failover takes (issue 28 item 5).</summary>
public sealed class ClientOptionsTests
{
    [Fact]
    public void A_default_client_pauses_between_rounds_less_than_the_default_election_timeout()
    {
        // Else a client waiting through a leader's crash can sleep past the new leader's election by up to a pause.
        var options = new ClusterClientOptions();
        Assert.True(options.MaxBackoff < TimeSpan.FromMilliseconds(ClusterNodeOptions.DefaultLowerElectionTimeout),
            $"longest pause {options.MaxBackoff.TotalMilliseconds} ms, election timeout from {ClusterNodeOptions.DefaultLowerElectionTimeout} ms");
        Assert.True(options.InitialBackoff <= options.MaxBackoff);
    }
}
