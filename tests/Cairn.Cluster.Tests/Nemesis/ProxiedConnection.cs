using System.Net.Sockets;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>One TCP connection through a <see cref="LinkProxy"/>: the dialler's socket and the one to its target.</summary>
internal sealed class ProxiedConnection
{
    private readonly Socket dialler;
    private readonly Socket target;
    private readonly CancellationTokenSource stop = new();
    private int aborted;

    public ProxiedConnection(Socket dialler, Socket target)
    {
        this.dialler = dialler;
        this.target = target;
    }

    /// <summary>Forwards both directions until both have ended or the connection is aborted.</summary>
    public async Task RunAsync(DirectedLink outbound, DirectedLink inbound)
    {
        try
        {
            await Task.WhenAll(
                BytePump.RunAsync(dialler, target, outbound, Abort, stop.Token),
                BytePump.RunAsync(target, dialler, inbound, Abort, stop.Token));
        }
        finally
        {
            dialler.Dispose();
            target.Dispose();
            stop.Dispose();
        }
    }

    /// <summary>Cuts both sides with a reset (linger 0) at once; the pumps see it and end.</summary>
    public void Abort()
    {
        if (Interlocked.Exchange(ref aborted, 1) != 0)
            return;
        try
        {
            stop.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // RunAsync has already finished: nothing left to cut.
        }

        Reset(dialler);
        Reset(target);
    }

    /// <summary>Closes a socket with a reset instead of a FIN, so its peer sees the connection cut.</summary>
    public static void Reset(Socket socket)
    {
        try
        {
            socket.LingerState = new LingerOption(true, 0);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // Already closed: there is nothing to reset.
        }

        socket.Dispose();
    }
}
