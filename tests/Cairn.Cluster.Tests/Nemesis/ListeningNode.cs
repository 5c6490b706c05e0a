using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>A plain-socket stand-in for a node in the proxy's own tests: a listener on 127.0.0.1 with an OS port.</summary>
internal sealed class ListeningNode : IDisposable
{
    private readonly Socket listener = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);

    public ListeningNode()
    {
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(backlog: 16);
        EndPoint = (IPEndPoint)listener.LocalEndPoint!;
    }

    public IPEndPoint EndPoint { get; }

    public async Task<Socket> AcceptAsync() => await listener.AcceptAsync(Eventually.Deadline());

    public void Dispose() => listener.Dispose();

    /// <summary>Node <paramref name="from"/> connects to node <paramref name="to"/> through the network; returns both ends.</summary>
    public static async Task<(Socket Dialler, Socket Accepted)> ConnectAsync(NemesisNetwork network, int from, int to, ListeningNode target)
    {
        var dialler = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await dialler.ConnectAsync(network.ProxyEndPoint(from, to), Eventually.Deadline());
        return (dialler, await target.AcceptAsync());
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
}
