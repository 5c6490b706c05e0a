using System.Net;
using Cairn.Cluster.NodeHost;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>The node host's command line as the campaigns write it for founders and for nodes that join later.</summary>
public sealed class NodeHostArgumentsTests
{
    private static readonly IPEndPoint[] Addresses = [.. Enumerable.Range(0, 5).Select(i => new IPEndPoint(IPAddress.Loopback, 21_000 + i))];

    private static NodeHostArguments For(int node, int founders) => new(node, "/data", Addresses,
        [.. Enumerable.Range(0, Addresses.Length).Select(j => j == node ? null : new IPEndPoint(IPAddress.Loopback, 22_000 + j))], 23_000, 24_000)
    {
        Founders = founders,
        SnapshotInterval = 8,
    };

    [Fact]
    public void A_founder_and_a_joining_node_read_back_what_was_written()
    {
        var founder = NodeHostArguments.Parse(For(1, founders: 3).ToArguments());
        Assert.Equal(Addresses.Take(3), founder.FoundingMembers);
        Assert.Equal(8, founder.SnapshotInterval);
        Assert.Equal(Addresses[1], founder.Self);

        var joining = NodeHostArguments.Parse(For(4, founders: 0).ToArguments());
        Assert.Empty(joining.FoundingMembers);
        Assert.Equal(Addresses[4], joining.Self);
        Assert.Equal(Addresses.Length, joining.DialThrough.Count);
    }

    [Fact]
    public void Without_the_new_arguments_every_member_founds_with_the_default_interval()
    {
        var written = For(0, founders: 5).ToArguments();
        var old = written.Take(written.Count - 4).ToArray(); // as a host of before membership events was started
        var parsed = NodeHostArguments.Parse(old);
        Assert.Equal(Addresses, parsed.FoundingMembers);
        Assert.Equal(ClusterNodeOptions.DefaultSnapshotInterval, parsed.SnapshotInterval);
    }

    [Theory]
    [InlineData(3, 6)] // more founders than addresses
    [InlineData(4, 3)] // a founder outside the founders
    public void Founders_that_do_not_fit_are_refused(int node, int founders)
    {
        var arguments = For(node, founders: 0).ToArguments().ToArray();
        arguments[Array.IndexOf(arguments, "--founders") + 1] = founders.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var refused = Assert.Throws<ArgumentException>(() => NodeHostArguments.Parse(arguments));
        Assert.Contains("--founders", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_snapshot_interval_that_is_not_a_number_is_refused()
    {
        var arguments = For(0, founders: 3).ToArguments().ToArray();
        arguments[^1] = "eight";
        Assert.Contains("--snapshot-interval", Assert.Throws<ArgumentException>(() => NodeHostArguments.Parse(arguments)).Message, StringComparison.Ordinal);
    }
}
