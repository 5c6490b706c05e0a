using System.Net;
using System.Net.Sockets;
using System.Text;
using Cairn.Cluster.NodeHost;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// Asks a node host on its control port (<see cref="ControlRequests"/>): one connection per question, so a paused or
/// killed node costs the asker one timed-out question and nothing else.
/// </summary>
internal static class NodeControl
{
    /// <summary>The node's status, or null when it does not answer within <paramref name="patience"/> (killed, paused, starting).</summary>
    public static async Task<NodeStatus?> TryStatusAsync(int port, TimeSpan patience)
    {
        try
        {
            var lines = await AskAsync(port, ControlRequests.Status, last => true, patience);
            return NodeStatus.Parse(lines[0]);
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException)
        {
            return null;
        }
    }

    /// <summary>The node's <see cref="NodeDump"/>.</summary>
    public static async Task<string> DumpAsync(int port, TimeSpan patience)
    {
        var lines = await AskAsync(port, ControlRequests.Dump, last => last == ControlRequests.EndOfDump, patience);
        return string.Concat(lines.SkipLast(1).Select(line => line + Environment.NewLine));
    }

    /// <summary>The node's <c>Verify()</c> line: <c>ok ...</c> or <c>failed: ...</c>.</summary>
    public static async Task<string> VerifyAsync(int port, TimeSpan patience)
        => (await AskAsync(port, ControlRequests.Verify, last => true, patience))[0];

    /// <summary>The one line the node answers <paramref name="request"/> with.</summary>
    public static async Task<string> AskLineAsync(int port, string request, TimeSpan patience)
        => (await AskAsync(port, request, last => true, patience))[0];

    /// <summary>The one line the node answers, or <c>unreachable: ...</c> when it does not within <paramref name="patience"/>.</summary>
    public static async Task<string> TryAskLineAsync(int port, string request, TimeSpan patience)
    {
        try
        {
            return await AskLineAsync(port, request, patience);
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException)
        {
            return $"unreachable: {e.Message}";
        }
    }

    /// <summary>Snapshots the node's current run installed, or 0 when it does not answer.</summary>
    public static async Task<long> TryInstallsAsync(int port, TimeSpan patience)
        => long.TryParse(await TryAskLineAsync(port, ControlRequests.Installs, patience), System.Globalization.NumberStyles.None,
            System.Globalization.CultureInfo.InvariantCulture, out var installs) ? installs : 0;

    private static async Task<List<string>> AskAsync(int port, string request, Func<string, bool> isLast, TimeSpan patience)
    {
        using var giveUp = new CancellationTokenSource(patience);
        using var client = new TcpClient();
        await client.ConnectAsync(new IPEndPoint(IPAddress.Loopback, port), giveUp.Token);
        await using var stream = client.GetStream();
        var ask = Encoding.UTF8.GetBytes(request + "\n");
        await stream.WriteAsync(ask, giveUp.Token);
        using var reader = new StreamReader(stream, Encoding.UTF8);
        var lines = new List<string>();
        while (true)
        {
            var line = await reader.ReadLineAsync(giveUp.Token)
                ?? throw new IOException($"The node on control port {port} closed the connection during '{request}'.");
            lines.Add(line);
            if (isLast(line))
                return lines;
        }
    }
}
