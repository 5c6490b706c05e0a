using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>
/// Ports the demo's nodes can listen on, free now and outside the range the OS hands out on its own. A port taken by
/// binding to port 0 comes from that range, the one every outgoing connection's local port also comes from: between the
/// demo choosing it and the node binding it, any connection on the machine (the first nodes' own Raft connections
/// among them) could take it, and the node would fail with "address already in use". Ports below the range are taken
/// only by a process that asks for them by number.
/// </summary>
internal static class ListenPorts
{
    // Below this the well-known and registered services crowd; the demo starts its search somewhere above it.
    private const int Lowest = 20000;

    // Where the OS's own range starts when it does not say: Linux's default (Windows and the IANA range start at 49152).
    private const int DefaultEphemeralStart = 32768;

    /// <summary><paramref name="count"/> distinct ports on 127.0.0.1 that nothing listens on now.</summary>
    public static int[] Pick(int count)
    {
        var top = Math.Min(EphemeralStart(), DefaultEphemeralStart);
        if (top - Lowest < 100 * count)
            throw new InvalidOperationException($"The OS hands out ports from {top} up: too few are left below it for the demo's {count} ports.");
        var held = new List<Socket>();
        try
        {
            // A random start, so two demos started together rarely probe the same ports; each port is held until all
            // are chosen, so the same one is never returned twice.
            var start = Random.Shared.Next(Lowest, top - 50 * count);
            for (var port = start; held.Count < count && port < top; port++)
            {
                var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
                try
                {
                    socket.Bind(new IPEndPoint(IPAddress.Loopback, port));
                    held.Add(socket);
                }
                catch (SocketException)
                {
                    socket.Dispose();
                }
            }

            if (held.Count < count)
                throw new InvalidOperationException($"Found only {held.Count} free ports of {count} between {start} and {top}.");
            return [.. held.Select(s => ((IPEndPoint)s.LocalEndPoint!).Port)];
        }
        finally
        {
            foreach (var socket in held)
                socket.Dispose();
        }
    }

    /// <summary>The first port of the OS's own range: Linux says it in /proc; elsewhere the default is assumed.</summary>
    private static int EphemeralStart()
    {
        const string range = "/proc/sys/net/ipv4/ip_local_port_range";
        if (!File.Exists(range))
            return DefaultEphemeralStart;
        var first = File.ReadAllText(range).Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries).FirstOrDefault();
        return int.TryParse(first, NumberStyles.None, CultureInfo.InvariantCulture, out var start) ? start : DefaultEphemeralStart;
    }
}
