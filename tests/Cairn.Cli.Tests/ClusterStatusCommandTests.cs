using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using Cairn.Cli.Tests.Support;
using Cairn.Cluster;
using Cairn.Cluster.Tests.Usable;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

/// <summary><c>cairn cluster status</c> against a running one-member cluster's client server, and against addresses where nobody answers.</summary>
public sealed class ClusterStatusCommandTests
{
    [Fact]
    public async Task Prints_the_leader_term_indexes_and_members_and_changes_nothing()
    {
        using var directory = new TestDirectory("cli-cluster-status");
        await using var node = await SingleNode.StartAsync(directory);
        var written = await node.WriteAsync(SingleNode.Put(1, "orders", [1], [2]));
        await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, 0));
        var before = node.GetStatus();

        var result = CliRun.Run("cluster", "status", server.EndPoint.ToString());

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("1 endpoint(s) asked, 1 answered", result.Output);
        Assert.Contains($"leader         {node.LocalEndPoint}, term {before.Term}, commit index {before.CommitIndex:N0}", result.Output);
        Assert.Matches($@"\n  {Regex(server.EndPoint)} +{Regex(node.LocalEndPoint)} +leader +{before.Term} +{before.LastLogIndex:N0} +{before.CommitIndex:N0} +{before.AppliedIndex:N0} +0\r?\n", result.Output);
        Assert.Contains("members, as the leader sees them", result.Output);
        // A tool that inspects writes nothing: the node's log and indexes are as they were.
        Assert.Equal(before, node.GetStatus() with { Members = before.Members });
        Assert.True(before.AppliedIndex >= written.LogIndex);
    }

    [Fact]
    public async Task Prints_json_with_an_entry_per_endpoint()
    {
        using var directory = new TestDirectory("cli-cluster-status-json");
        await using var node = await SingleNode.StartAsync(directory);
        await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, 0));

        var result = CliRun.Run("cluster", "status", server.EndPoint.ToString(), "--json");

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(result.Output);
        var root = json.RootElement;
        Assert.Equal(node.LocalEndPoint.ToString(), root.GetProperty("leader").GetString());
        var endpoint = Assert.Single(root.GetProperty("endpoints").EnumerateArray().ToArray());
        Assert.Equal("leader", endpoint.GetProperty("role").GetString());
        Assert.Equal(node.LocalEndPoint.ToString(), endpoint.GetProperty("node").GetString());
        Assert.Equal(0, endpoint.GetProperty("behindLeader").GetInt64());
        Assert.Equal(JsonValueKind.Null, endpoint.GetProperty("error").ValueKind);
    }

    [Fact]
    public async Task A_node_that_does_not_answer_is_named_and_the_exit_code_is_3_while_the_others_are_printed()
    {
        using var directory = new TestDirectory("cli-cluster-status-down");
        await using var node = await SingleNode.StartAsync(directory);
        await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, 0));
        // Bound but not listening: a connection to it is refused, and no other process can take the port meanwhile.
        using var closed = new Socket(SocketType.Stream, ProtocolType.Tcp);
        closed.Bind(new IPEndPoint(IPAddress.Loopback, 0));

        var result = CliRun.Run("cluster", "status", server.EndPoint.ToString(), closed.LocalEndPoint!.ToString()!);

        Assert.True(result.ExitCode == 3, result.ToString());
        Assert.Contains("2 endpoint(s) asked, 1 answered", result.Output);
        Assert.Matches($@"\n  {Regex(closed.LocalEndPoint)} +- +unreachable", result.Output);
        Assert.Contains($"cairn cluster status: {closed.LocalEndPoint}:", result.Error);
    }

    [Theory]
    [InlineData("no-port")]
    [InlineData("127.0.0.1:0")]
    [InlineData("127.0.0.1:70000")]
    public void An_address_that_is_not_one_is_a_usage_error(string endpoint)
    {
        var result = CliRun.Run("cluster", "status", endpoint);
        Assert.True(result.ExitCode == 2, result.ToString());
        Assert.Contains($"'{endpoint}' is not an address", result.Error);
    }

    [Fact]
    public void No_address_is_a_usage_error()
    {
        var result = CliRun.Run("cluster", "status");
        Assert.True(result.ExitCode == 2, result.ToString());
    }

    private static string Regex(EndPoint endPoint) => System.Text.RegularExpressions.Regex.Escape(endPoint.ToString()!);
}
