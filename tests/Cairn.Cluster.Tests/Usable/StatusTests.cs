using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Cairn.Cluster.Client.Remote;
using Cairn.Cluster.Tests.Nemesis;
using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Usable;

/// <summary>A node's status: what it reports, its codec on the client → node protocol, and the refusals of bad frames.</summary>
public sealed class StatusTests
{
    private const string Tree = "status";

    [Fact]
    public async Task A_node_reports_its_leader_term_indexes_and_members_locally_and_over_its_server()
    {
        using var directory = new TestDirectory("cluster-status");
        await using var node = await SingleNode.StartAsync(directory);
        var written = await node.WriteAsync(SingleNode.Put(1, Tree, [1], [2]));

        var status = node.GetStatus();
        Assert.True(status.IsLeader);
        Assert.Equal(node.LocalEndPoint, status.Node);
        Assert.Equal(node.LocalEndPoint, status.Leader);
        Assert.Equal(node.Term, status.Term);
        Assert.True(status.AppliedIndex >= written.LogIndex, $"applied {status.AppliedIndex} < written {written.LogIndex}");
        Assert.True(status.CommitIndex >= status.AppliedIndex, status.ToString());
        Assert.True(status.LastLogIndex >= status.CommitIndex, status.ToString());
        Assert.Equal([node.LocalEndPoint], status.Members.Select(m => m.EndPoint));
        Assert.Null(status.Members[0].Reachable); // the leader itself

        await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, 0));
        await using var connection = new RemoteNodeConnection(node.LocalEndPoint, server.EndPoint);
        var remote = await connection.GetStatusAsync(Eventually.Deadline());
        // Nothing is written between the two, so the indexes and term are the same.
        Assert.Equal(status with { Members = [] }, remote with { Members = [] });
        Assert.Equal(status.Members, remote.Members);
    }

    [Fact]
    public void A_status_reply_round_trips_and_every_truncation_or_extra_byte_is_refused()
    {
        var status = new ClusterNodeStatus(new IPEndPoint(IPAddress.Loopback, 7001), new DnsEndPoint("node-2.example", 7002), 7, 120, 118, 117,
            [new ClusterMemberView(new IPEndPoint(IPAddress.Loopback, 7001), null), new ClusterMemberView(new DnsEndPoint("node-2.example", 7002), true),
             new ClusterMemberView(new IPEndPoint(IPAddress.IPv6Loopback, 7003), false)]);
        var bytes = StatusCodec.EncodeReply(status);
        var decoded = StatusCodec.DecodeReply(bytes);
        Assert.Equal(status with { Members = [] }, decoded with { Members = [] });
        Assert.Equal(status.Members, decoded.Members);
        Assert.Equal(1, decoded.ApplyLag);

        for (var length = 0; length < bytes.Length; length++)
            Assert.Throws<InvalidDataException>(() => StatusCodec.DecodeReply(bytes[..length]));
        Assert.Throws<InvalidDataException>(() => StatusCodec.DecodeReply([.. bytes, 0]));
        var otherVersion = bytes.ToArray();
        otherVersion[0] = 2;
        Assert.Contains("version 2", Assert.Throws<InvalidDataException>(() => StatusCodec.DecodeReply(otherVersion)).Message);
        var badFlag = bytes.ToArray();
        badFlag[^1] = 3;
        Assert.Contains("reachability 3", Assert.Throws<InvalidDataException>(() => StatusCodec.DecodeReply(badFlag)).Message);
    }

    [Fact]
    public void A_status_reply_whose_address_is_not_one_is_refused_naming_its_offset()
    {
        var status = new ClusterNodeStatus(new IPEndPoint(IPAddress.Loopback, 7001), null, 1, 1, 1, 1, []);
        var bytes = StatusCodec.EncodeReply(status);
        var text = Encoding.UTF8.GetBytes("127.0.0.1:7001");
        var at = bytes.AsSpan().IndexOf(text);
        "not-an-addr:x"u8.CopyTo(bytes.AsSpan(at)); // same length, no port
        var refusal = Assert.Throws<InvalidDataException>(() => StatusCodec.DecodeReply(bytes));
        Assert.Contains($"offset {at - 2}", refusal.Message);
    }

    [Fact]
    public async Task A_status_request_of_another_version_or_length_is_refused_and_the_connection_closed()
    {
        using var directory = new TestDirectory("cluster-status-bad");
        await using var node = await SingleNode.StartAsync(directory);
        await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, 0));
        var deadline = Eventually.Deadline();

        Assert.Contains("status version 9 is not spoken here", await RefusalAsync(server.EndPoint, [9], deadline));
        Assert.Contains("a status request is 1 byte (its version), not 0", await RefusalAsync(server.EndPoint, [], deadline));
        Assert.Contains("not 3", await RefusalAsync(server.EndPoint, [1, 0, 0], deadline));

        // The server still serves a well-formed request afterwards.
        await using var connection = new RemoteNodeConnection(node.LocalEndPoint, server.EndPoint);
        Assert.True((await connection.GetStatusAsync(deadline)).IsLeader);
    }

    [Fact]
    public async Task A_server_over_a_node_in_another_process_refuses_status()
    {
        await using var server = ClusterNodeServer.Start(new NoStatusNode(), new IPEndPoint(IPAddress.Loopback, 0));
        await using var connection = new RemoteNodeConnection(new IPEndPoint(IPAddress.Loopback, 1), server.EndPoint);
        var refusal = await Assert.ThrowsAsync<IOException>(() => connection.GetStatusAsync(Eventually.Deadline()));
        Assert.Contains("gives no status: node 127.0.0.1:1 is not in this server's process and reports no status", refusal.Message);
    }

    /// <summary>Sends one status frame with <paramref name="body"/>; returns the BadRequest's reason once the server also closed.</summary>
    private static async Task<string> RefusalAsync(IPEndPoint server, byte[] body, CancellationToken deadline)
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(server, deadline);
        await using var stream = new NetworkStream(socket);
        var frame = new byte[5 + body.Length];
        BinaryPrimitives.WriteInt32LittleEndian(frame, 1 + body.Length);
        frame[4] = 4; // Status
        body.CopyTo(frame, 5);
        await stream.WriteAsync(frame, deadline);
        var header = new byte[5];
        await stream.ReadExactlyAsync(header, deadline);
        Assert.Equal(7, header[4]); // BadRequest
        var reason = new byte[BinaryPrimitives.ReadInt32LittleEndian(header) - 1];
        await stream.ReadExactlyAsync(reason, deadline);
        Assert.Equal(0, await stream.ReadAsync(new byte[1], deadline));
        return Encoding.UTF8.GetString(reason);
    }

    private sealed class NoStatusNode : IClusterNodeConnection
    {
        public EndPoint LocalEndPoint { get; } = new IPEndPoint(IPAddress.Loopback, 1);

        public Task<ClusterWriteResult> WriteAsync(ClusterCommand command, CancellationToken cancellationToken = default)
            => throw new ClusterUnavailableException(LocalEndPoint, "a test node that serves nothing");

        public Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default)
            => throw new ClusterUnavailableException(LocalEndPoint, "a test node that serves nothing");

        public Task<byte[]?> ReadAppliedAsync(string tree, byte[] key, long minimumIndex, CancellationToken cancellationToken = default)
            => throw new ClusterUnavailableException(LocalEndPoint, "a test node that serves nothing");
    }
}
