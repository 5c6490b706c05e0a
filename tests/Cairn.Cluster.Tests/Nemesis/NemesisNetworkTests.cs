using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using static Cairn.Cluster.Tests.Nemesis.PlainSocketNodes;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>The nemesis's network on its own, with plain sockets for nodes.</summary>
public sealed class NemesisNetworkTests
{
    [Fact]
    public async Task Pass_forwards_both_ways()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var (dialler, accepted) = await nodes.ConnectAsync(0, 1);

        await SendAsync(dialler, "hello");
        Assert.Equal("hello", await ReceiveTextAsync(accepted, 5));
        await SendAsync(accepted, "world");
        Assert.Equal("world", await ReceiveTextAsync(dialler, 5));

        Assert.Equal(5, network.Link(0, 1).BytesForwarded);
        Assert.Equal(5, network.Link(1, 0).BytesForwarded);
    }

    [Fact]
    public async Task Drop_holds_bytes_and_keeps_the_connection_then_delivers_them_in_order_after_the_heal()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var (dialler, accepted) = await nodes.ConnectAsync(0, 1);

        network.Set(0, 1, LinkBehaviour.Drop);
        await SendHeldAsync(dialler, "late bytes", network.Link(0, 1));
        // Held by the proxy, so nothing can be waiting at node 1: a zero-time poll is exact here.
        Assert.False(accepted.Poll(0, SelectMode.SelectRead), "node 1 got bytes while the link dropped");

        // The connection is still there, and the other direction still passes.
        await SendAsync(accepted, "back");
        Assert.Equal("back", await ReceiveTextAsync(dialler, 4));

        network.Set(0, 1, LinkBehaviour.Pass);
        await SendAsync(dialler, "+kept");
        // A TCP stream has no holes: what was sent while the link dropped comes first, then the rest.
        Assert.Equal("late bytes+kept", await ReceiveTextAsync(accepted, 15));
        Assert.Equal(15, network.Link(0, 1).BytesForwarded);
    }

    [Fact]
    public async Task Drop_holds_the_end_of_stream_until_the_link_passes()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var (dialler, accepted) = await nodes.ConnectAsync(0, 1);

        network.Set(0, 1, LinkBehaviour.Drop);
        dialler.Shutdown(SocketShutdown.Send);
        await Eventually.HoldsAsync(() => network.Link(0, 1).EndsHeld == 1, () => "the end of stream is not held");
        Assert.False(accepted.Poll(0, SelectMode.SelectRead), "node 1 saw the end of stream while the link dropped");

        network.Set(0, 1, LinkBehaviour.Pass);
        Assert.Equal(0, await accepted.ReceiveAsync(new byte[1], SocketFlags.None, Eventually.Deadline()));
        Assert.Equal(0, network.Link(0, 1).EndsHeld);
    }

    [Fact]
    public async Task Reset_cuts_open_connections_both_ways_and_refuses_new_ones_until_it_passes()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var (forward, forwardAccepted) = await nodes.ConnectAsync(0, 1);
        var (backward, backwardAccepted) = await nodes.ConnectAsync(1, 0);

        network.Set(0, 1, LinkBehaviour.Reset);

        // Every end of both connections sees the cut, also those of the connection node 1 dialled.
        foreach (var end in new[] { forward, forwardAccepted, backward, backwardAccepted })
            await AssertCutAsync(end);

        await AssertRefusedAsync(network.ProxyEndPoint(0, 1));
        await AssertRefusedAsync(network.ProxyEndPoint(1, 0));

        network.Set(0, 1, LinkBehaviour.Pass);
        var (again, againAccepted) = await nodes.ConnectAsync(0, 1);
        await SendAsync(again, "again");
        Assert.Equal("again", await ReceiveTextAsync(againAccepted, 5));
    }

    [Fact]
    public async Task Delay_adds_at_least_its_latency_and_keeps_order_when_changed_midway()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var (dialler, accepted) = await nodes.ConnectAsync(0, 1);
        var delay = TimeSpan.FromMilliseconds(300);
        const int messages = 200;

        network.Set(0, 1, LinkBehaviour.Delayed(delay));
        var sentFirst = Stopwatch.GetTimestamp();
        var receiving = ReceiveExactlyAsync(accepted, 4);
        await SendNumberAsync(dialler, 0);
        await receiving;
        // A lower bound only: a loaded machine can make it later, never earlier.
        Assert.True(Stopwatch.GetElapsedTime(sentFirst) >= delay, $"the first message arrived {Stopwatch.GetElapsedTime(sentFirst)} after it was sent");

        // Chunks sent once the link passes again are due before the delayed ones still queued: they must wait.
        for (var i = 1; i < messages; i++)
        {
            if (i == messages / 2)
                network.Set(0, 1, LinkBehaviour.Pass);
            else if (i == messages / 4)
                network.Set(0, 1, LinkBehaviour.Delayed(TimeSpan.FromSeconds(1)));
            await SendNumberAsync(dialler, i);
        }

        var received = await ReceiveExactlyAsync(accepted, 4 * (messages - 1));
        for (var i = 1; i < messages; i++)
            Assert.Equal(i, BinaryPrimitives.ReadInt32LittleEndian(received.AsSpan(4 * (i - 1))));
    }

    [Fact]
    public async Task One_way_holds_one_direction_only_on_connections_either_node_dials()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var (fromZero, atOne) = await nodes.ConnectAsync(0, 1);
        var (fromOne, atZero) = await nodes.ConnectAsync(1, 0);

        network.OneWay(0, 1);

        // Node 0's requests on its own connection, and its replies on node 1's, are held...
        await SendHeldAsync(fromZero, "request", network.Link(0, 1));
        await SendHeldAsync(atZero, "reply", network.Link(0, 1));
        // ...while node 1's bytes reach node 0 on both.
        await SendAsync(atOne, "pong");
        Assert.Equal("pong", await ReceiveTextAsync(fromZero, 4));
        await SendAsync(fromOne, "ping");
        Assert.Equal("ping", await ReceiveTextAsync(atZero, 4));
        Assert.Equal(0, network.Link(1, 0).BytesHeld);

        network.Heal();
        await SendAsync(fromZero, "healed");
        Assert.Equal("requesthealed", await ReceiveTextAsync(atOne, 13));
        await SendAsync(atZero, "healed");
        Assert.Equal("replyhealed", await ReceiveTextAsync(fromOne, 11));
    }

    [Fact]
    public async Task Partition_sets_every_link_between_groups_and_checks_the_groups()
    {
        await using var nodes = new PlainSocketNodes(3);
        var network = nodes.Network;

        network.Partition([[0], [2, 1]]);
        foreach (var (from, to) in new[] { (0, 1), (1, 0), (0, 2), (2, 0) })
            Assert.Equal(LinkBehaviour.Drop, network.Link(from, to).Behaviour);
        Assert.Equal(LinkBehaviour.Pass, network.Link(1, 2).Behaviour);
        Assert.Equal(LinkBehaviour.Pass, network.Link(2, 1).Behaviour);

        network.Partition([[0, 1], [2]], LinkBehaviour.Delayed(TimeSpan.FromSeconds(2)));
        Assert.Equal(LinkBehaviour.Pass, network.Link(0, 1).Behaviour);
        Assert.Equal(LinkMode.Delay, network.Link(2, 0).Behaviour.Mode);
        Assert.Equal(LinkMode.Delay, network.Link(1, 2).Behaviour.Mode);

        Assert.Throws<ArgumentException>(() => network.Partition([[0, 1], [1, 2]]));
        Assert.Throws<ArgumentException>(() => network.Partition([[0], [2]]));
        Assert.Throws<ArgumentOutOfRangeException>(() => network.Partition([[0, 1, 2], [3]]));

        network.Heal();
        foreach (var (from, to) in new[] { (0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1) })
            Assert.Equal(LinkBehaviour.Pass, network.Link(from, to).Behaviour);
    }

    [Fact]
    public async Task Dispose_ends_every_connection_and_frees_every_port()
    {
        await using var nodes = new PlainSocketNodes(3);
        var network = nodes.Network;
        var ends = new List<Socket>();
        var ports = new List<IPEndPoint>();
        for (var from = 0; from < 3; from++)
        {
            for (var to = 0; to < 3; to++)
            {
                if (from == to)
                    continue;
                ports.Add(network.ProxyEndPoint(from, to));
                var (dialler, accepted) = await nodes.ConnectAsync(from, to);
                ends.Add(dialler);
                ends.Add(accepted);
            }
        }

        // One direction dropping and one delayed: their pumps are waiting when the network goes.
        network.Set(0, 1, LinkBehaviour.Drop);
        network.Set(2, 1, LinkBehaviour.Delayed(TimeSpan.FromMinutes(10)));
        await SendHeldAsync(ends[0], "held", network.Link(0, 1));
        await SendAsync(ends[10], "late"); // node 2's end of its connection to node 1
        await Eventually.HoldsAsync(() => network.LiveConnections == 6, () => $"{network.LiveConnections} of 6 connections registered");

        await network.DisposeAsync();

        Assert.Equal(0, network.LiveConnections);
        foreach (var end in ends)
        {
            await AssertCutAsync(end);
            end.Dispose();
        }

        foreach (var port in ports)
        {
            using var rebound = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            rebound.Bind(port);
            rebound.Listen();
        }
    }

    [Fact]
    public async Task Bad_node_numbers_and_addresses_are_refused_where_they_enter()
    {
        await using var nodes = new PlainSocketNodes(2);
        var network = nodes.Network;
        var somewhere = network.ProxyEndPoint(0, 1);
        Assert.Throws<ArgumentException>(() => new NemesisNetwork([somewhere, somewhere]));
        Assert.Throws<ArgumentException>(() => new NemesisNetwork([somewhere]));
        Assert.Throws<ArgumentException>(() => network.Set(1, 1, LinkBehaviour.Drop));
        Assert.Throws<ArgumentOutOfRangeException>(() => network.Link(0, 2));
        Assert.Throws<ArgumentOutOfRangeException>(() => LinkBehaviour.Delayed(TimeSpan.Zero));
    }

    /// <summary>Sends <paramref name="text"/> into a dropping link and waits until the proxy holds all of it.</summary>
    private static async Task SendHeldAsync(Socket socket, string text, DirectedLink link)
    {
        var heldBefore = link.BytesHeld;
        await SendAsync(socket, text);
        await Eventually.HoldsAsync(
            () => link.BytesHeld == heldBefore + text.Length,
            () => $"{link}: {link.BytesHeld - heldBefore} of the {text.Length} bytes sent are held");
    }

    private static async Task SendNumberAsync(Socket socket, int number)
    {
        var bytes = new byte[4];
        BinaryPrimitives.WriteInt32LittleEndian(bytes, number);
        await socket.SendAsync(bytes, SocketFlags.None);
    }

    /// <summary>A new connection is cut as soon as the proxy accepts it: the connect or the first read sees the reset.</summary>
    private static async Task AssertRefusedAsync(IPEndPoint proxy)
    {
        using var refused = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            await refused.ConnectAsync(proxy, Eventually.Deadline());
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
        {
            return;
        }

        await AssertCutAsync(refused);
    }

    /// <summary>The connection is gone: a read ends the stream or fails with a reset, never returns data.</summary>
    private static async Task AssertCutAsync(Socket socket)
    {
        try
        {
            var buffer = new byte[64];
            int count;
            while ((count = await socket.ReceiveAsync(buffer, SocketFlags.None, Eventually.Deadline())) > 0)
                Assert.Fail($"a cut connection delivered {count} bytes");
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
        {
        }
    }
}
