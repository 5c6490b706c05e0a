using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>The client → node protocol: a <see cref="ClusterClient"/> over <see cref="RemoteNodeConnection"/>s to each node's <see cref="ClusterNodeServer"/>.</summary>
public sealed class RemoteClientTests
{
    private const string Tree = "remote";

    [Fact]
    public async Task A_remote_client_writes_and_reads_through_the_servers_and_goes_on_when_the_leader_stops()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-remote");
        var servers = cluster.Connections.Select(node => ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, 0))).ToArray();
        var connections = cluster.Connections.Select((node, i) => new RemoteNodeConnection(node.LocalEndPoint, servers[i].EndPoint)).ToArray();
        try
        {
            using var client = new ClusterClient(connections);
            var deadline = Eventually.Deadline();
            for (var i = 0; i < 10; i++)
                await client.WriteAsync(Tree, [ClusterOperation.Put(ThreeNodeClusterTests.Key(i), ThreeNodeClusterTests.Value(i))], deadline);
            Assert.Equal(ThreeNodeClusterTests.Value(9), await client.ReadAsync(Tree, ThreeNodeClusterTests.Key(9), deadline));
            Assert.Null(await client.ReadAsync(Tree, ThreeNodeClusterTests.Key(99), deadline));

            var leader = await LeaderLoss.StopAsync(cluster, [0, 1, 2]);
            for (var i = 10; i < 20; i++)
                await client.WriteAsync(Tree, [ClusterOperation.Put(ThreeNodeClusterTests.Key(i), ThreeNodeClusterTests.Value(i))], deadline);
            for (var i = 0; i < 20; i++)
                Assert.Equal(ThreeNodeClusterTests.Value(i), await client.ReadAsync(Tree, ThreeNodeClusterTests.Key(i), deadline));
            var follower = Enumerable.Range(0, 3).First(i => i != leader && !cluster[i].IsLeader);
            Assert.Equal(ThreeNodeClusterTests.Value(19), await client.ReadAppliedAsync(follower, Tree, ThreeNodeClusterTests.Key(19), deadline));
        }
        finally
        {
            foreach (var connection in connections)
                await connection.DisposeAsync();
            foreach (var server in servers)
                await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task A_malformed_request_is_refused_and_the_server_serves_the_next_connection()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-remote-bad");
        await using var server = ClusterNodeServer.Start(cluster.Connections[0], new IPEndPoint(IPAddress.Loopback, 0));
        var deadline = Eventually.Deadline();
        using (var socket = new Socket(SocketType.Stream, ProtocolType.Tcp))
        {
            await socket.ConnectAsync(server.EndPoint, deadline);
            await using var stream = new NetworkStream(socket);
            // A write whose command bytes are not a command.
            var frame = new byte[5 + 12];
            BinaryPrimitives.WriteInt32LittleEndian(frame, 13);
            frame[4] = 1;
            await stream.WriteAsync(frame, deadline);
            var header = new byte[5];
            await stream.ReadExactlyAsync(header, deadline);
            Assert.Equal(7, header[4]); // BadRequest
            var reason = new byte[BinaryPrimitives.ReadInt32LittleEndian(header) - 1];
            await stream.ReadExactlyAsync(reason, deadline);
            Assert.Contains("not a valid Cairn.Cluster command", System.Text.Encoding.UTF8.GetString(reason));
            Assert.Equal(0, await stream.ReadAsync(new byte[1], deadline)); // and the server closed the connection

            // A frame length no client sends: the server just closes.
            using var second = new Socket(SocketType.Stream, ProtocolType.Tcp);
            await second.ConnectAsync(server.EndPoint, deadline);
            await using var secondStream = new NetworkStream(second);
            BinaryPrimitives.WriteInt32LittleEndian(frame, int.MaxValue);
            await secondStream.WriteAsync(frame.AsMemory(0, 5), deadline);
            Assert.Equal(0, await secondStream.ReadAsync(new byte[1], deadline));
        }

        await using var connection = new RemoteNodeConnection(cluster.Connections[0].LocalEndPoint, server.EndPoint);
        Assert.Null(await connection.ReadAppliedAsync(Tree, [1], 0, deadline));
    }
}
