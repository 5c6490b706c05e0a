using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// Stand-ins for nodes in the network's own tests: plain listeners on 127.0.0.1 with ports from the OS, a
/// <see cref="NemesisNetwork"/> between them, and every socket a test opens, all closed on dispose.
/// </summary>
internal sealed class PlainSocketNodes : IAsyncDisposable
{
    private readonly Socket[] listeners;
    private readonly List<Socket> opened = [];

    public PlainSocketNodes(int count)
    {
        listeners = new Socket[count];
        for (var i = 0; i < count; i++)
        {
            listeners[i] = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            listeners[i].Bind(new IPEndPoint(IPAddress.Loopback, 0));
            listeners[i].Listen(backlog: 16);
        }

        Network = new NemesisNetwork(listeners.Select(listener => listener.LocalEndPoint!).ToArray());
    }

    public NemesisNetwork Network { get; }

    /// <summary>Node <paramref name="from"/> connects to node <paramref name="to"/> through the network; returns both ends.</summary>
    public async Task<(Socket Dialler, Socket Accepted)> ConnectAsync(int from, int to)
    {
        var dialler = Track(new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true });
        await dialler.ConnectAsync(Network.ProxyEndPoint(from, to), Eventually.Deadline());
        return (dialler, Track(await listeners[to].AcceptAsync(Eventually.Deadline())));
    }

    public async ValueTask DisposeAsync()
    {
        await Network.DisposeAsync();
        foreach (var socket in opened.Concat(listeners))
            socket.Dispose();
    }

    public static async Task SendAsync(Socket socket, string text)
    {
        var bytes = Encoding.ASCII.GetBytes(text);
        var sent = 0;
        while (sent < bytes.Length)
            sent += await socket.SendAsync(bytes.AsMemory(sent), SocketFlags.None);
    }

    /// <summary>Reads exactly <paramref name="length"/> bytes; fails if the stream ends first.</summary>
    public static async Task<byte[]> ReceiveExactlyAsync(Socket socket, int length)
    {
        var bytes = new byte[length];
        var received = 0;
        var deadline = Eventually.Deadline();
        while (received < length)
        {
            var count = await socket.ReceiveAsync(bytes.AsMemory(received), SocketFlags.None, deadline);
            if (count == 0)
                throw new EndOfStreamException($"The stream ended after {received} of {length} bytes.");
            received += count;
        }

        return bytes;
    }

    public static async Task<string> ReceiveTextAsync(Socket socket, int length)
        => Encoding.ASCII.GetString(await ReceiveExactlyAsync(socket, length));

    private Socket Track(Socket socket)
    {
        lock (opened)
            opened.Add(socket);
        return socket;
    }
}
