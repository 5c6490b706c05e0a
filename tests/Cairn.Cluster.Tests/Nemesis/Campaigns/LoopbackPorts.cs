using System.Net;
using System.Net.Sockets;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// Ports for node processes, which bind them themselves on every (re)start, so the port must be known before the
/// node runs and stay free while it is down. Picked below the kernel's ephemeral range (32768 and up here), where no
/// outgoing connection of the proxies or clients is given a port that a killed node needs back; each is checked free
/// by binding it, and never handed out twice by this process.
/// </summary>
internal static class LoopbackPorts
{
    private const int First = 20_000;
    private const int End = 32_000;

    // Guards given: tests run in parallel.
    private static readonly Lock gate = new();
    private static readonly HashSet<int> given = [];

    public static int Take()
    {
        for (var attempt = 0; attempt < 1000; attempt++)
        {
            var port = Random.Shared.Next(First, End);
            lock (gate)
            {
                if (given.Contains(port) || !IsFree(port))
                    continue;
                given.Add(port);
                return port;
            }
        }

        throw new InvalidOperationException($"No free loopback port between {First} and {End} after 1000 tries.");
    }

    private static bool IsFree(int port)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.Bind(new IPEndPoint(IPAddress.Loopback, port));
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
