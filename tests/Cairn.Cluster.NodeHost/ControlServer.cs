using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cairn.Cluster.NodeHost;

/// <summary>
/// The test's window into a node in another process: a line-based request/response on 127.0.0.1. Requests
/// (<see cref="ControlRequests"/>): <c>status</c> answers one <see cref="NodeStatus"/> line; <c>dump</c> the
/// <see cref="NodeDump"/> then a line <c>.</c>; <c>verify</c> <c>ok</c> or <c>failed: ...</c>; the membership
/// requests of <see cref="MembershipControl"/>, the only ones that change anything. An unknown request gets
/// <c>error: ...</c>.
/// </summary>
internal sealed class ControlServer : IAsyncDisposable
{
    private readonly ClusterNode node;
    private readonly TcpListener listener;
    private readonly CancellationTokenSource stopping = new();
    private readonly Task accepting;

    public ControlServer(ClusterNode node, int port)
    {
        this.node = node;
        listener = new TcpListener(IPAddress.Loopback, port);
        listener.Start();
        accepting = AcceptAsync();
    }

    public async ValueTask DisposeAsync()
    {
        await stopping.CancelAsync();
        listener.Stop();
        await accepting.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        stopping.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!stopping.IsCancellationRequested)
        {
            var client = await listener.AcceptTcpClientAsync(stopping.Token);
            _ = ServeAsync(client);
        }
    }

    private async Task ServeAsync(TcpClient client)
    {
        using var _ = client;
        try
        {
            await using var stream = client.GetStream();
            using var reader = new StreamReader(stream, Encoding.UTF8);
            await using var writer = new StreamWriter(stream, new UTF8Encoding(false)) { NewLine = "\n", AutoFlush = false };
            while (await reader.ReadLineAsync(stopping.Token) is { } request)
            {
                await writer.WriteAsync(await MembershipControl.TryAnswerAsync(node, request) ?? Answer(request));
                await writer.FlushAsync(stopping.Token);
            }
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // the test went away or the host is stopping
        }
    }

    private string Answer(string request) => request switch
    {
        ControlRequests.Status => NodeStatus.Of(node).Format() + "\n",
        ControlRequests.Dump => NodeDump.Of(node) + ControlRequests.EndOfDump + "\n",
        ControlRequests.Verify => VerifyLine(),
        _ => $"error: unknown request '{request}'\n",
    };

    private string VerifyLine()
    {
        try
        {
            var report = node.Verify();
            return $"ok {report.Trees} trees, {report.Entries} entries\n";
        }
        catch (VerificationException e)
        {
            return "failed: " + e.Message.ReplaceLineEndings(" | ") + "\n";
        }
    }
}

/// <summary>The control port's requests, and the line that ends a dump.</summary>
public static class ControlRequests
{
    public const string Status = "status";
    public const string Dump = "dump";
    public const string Verify = "verify";
    public const string EndOfDump = ".";
    public const string Members = "members";
    public const string Installs = "installs";
    public const string AddMember = "add";
    public const string RemoveMember = "remove";
}
