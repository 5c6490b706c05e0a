using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// The address node <see cref="DirectedLink.From"/> of <see cref="Outbound"/> dials to reach node
/// <see cref="DirectedLink.To"/>: a listener on 127.0.0.1 with a port from the OS, which connects each accepted
/// connection to the target node and forwards its bytes through <see cref="Outbound"/> (dialler to target) and
/// <see cref="Inbound"/> (target to dialler).
/// </summary>
public sealed class LinkProxy : IAsyncDisposable
{
    private readonly Socket listener;
    private readonly EndPoint target;
    private readonly CancellationTokenSource stopping = new();
    private readonly ConcurrentDictionary<ProxiedConnection, byte> live = new();
    private readonly ConcurrentDictionary<Task, byte> serving = new();
    // A connection that failed in a way the proxy does not expect (a bug in it, not a socket error): reported at dispose.
    private readonly ConcurrentQueue<Exception> faults = new();
    private readonly Task accepting;

    internal LinkProxy(EndPoint target, DirectedLink outbound, DirectedLink inbound)
    {
        this.target = target;
        Outbound = outbound;
        Inbound = inbound;
        listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            listener.Listen(backlog: 128);
        }
        catch
        {
            listener.Dispose();
            throw;
        }

        EndPoint = (IPEndPoint)listener.LocalEndPoint!;
        accepting = AcceptAsync();
    }

    public IPEndPoint EndPoint { get; }

    public DirectedLink Outbound { get; }

    public DirectedLink Inbound { get; }

    /// <summary>Connections accepted and forwarding now.</summary>
    public int LiveConnections => live.Count;

    private bool IsCut
        => stopping.IsCancellationRequested || Outbound.Behaviour.Mode == LinkMode.Reset || Inbound.Behaviour.Mode == LinkMode.Reset;

    /// <summary>Resets every connection open now (a link of this pair was set to <see cref="LinkMode.Reset"/>).</summary>
    internal void CutAll()
    {
        foreach (var connection in live.Keys)
            connection.Abort();
    }

    public async ValueTask DisposeAsync()
    {
        if (stopping.IsCancellationRequested)
            return;
        stopping.Cancel();
        listener.Dispose();
        await accepting;
        CutAll();
        await Task.WhenAll(serving.Keys);
        stopping.Dispose();
        if (!faults.IsEmpty)
            throw new AggregateException($"The proxy {Outbound.From}->{Outbound.To} failed.", faults);
    }

    private async Task AcceptAsync()
    {
        while (true)
        {
            Socket accepted;
            try
            {
                accepted = await listener.AcceptAsync(stopping.Token);
            }
            catch (Exception e) when (stopping.IsCancellationRequested
                                      && e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            var serve = ServeAsync(accepted);
            serving.TryAdd(serve, 0);
            _ = serve.ContinueWith(
                done =>
                {
                    if (done.Exception is { } fault)
                        faults.Enqueue(fault.GetBaseException());
                    serving.TryRemove(done, out _);
                },
                TaskScheduler.Default);
        }
    }

    private async Task ServeAsync(Socket accepted)
    {
        await Task.Yield();
        if (IsCut)
        {
            ProxiedConnection.Reset(accepted);
            return;
        }

        accepted.NoDelay = true;
        var upstream = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await upstream.ConnectAsync(target, stopping.Token);
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The target is down (or the proxy is closing): the dialler sees its connection cut.
            upstream.Dispose();
            ProxiedConnection.Reset(accepted);
            return;
        }

        var connection = new ProxiedConnection(accepted, upstream);
        live.TryAdd(connection, 0);
        try
        {
            // Checked after registering, so a cut that raced with this connection's setup still reaches it.
            if (IsCut)
                connection.Abort();
            await connection.RunAsync(Outbound, Inbound);
        }
        finally
        {
            live.TryRemove(connection, out _);
        }
    }
}
