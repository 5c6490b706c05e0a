using System.Net;
using Microsoft.AspNetCore.Connections;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// Hands a DotNext node the listener bound for it before the node was configured. A node's listen address is its
/// identity, which every member's configuration names before any node starts; binding first lets the OS choose
/// the port (never a fixed one) with no window in which another process could take it.
/// </summary>
public sealed class PreboundListenerFactory : IConnectionListenerFactory, IAsyncDisposable
{
    private IConnectionListener? listener;

    public PreboundListenerFactory(IConnectionListener listener)
    {
        this.listener = listener ?? throw new ArgumentNullException(nameof(listener));
        EndPoint = listener.EndPoint;
    }

    public EndPoint EndPoint { get; }

    public ValueTask<IConnectionListener> BindAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        if (!EndPoint.Equals(endpoint))
            throw new ArgumentException($"This factory holds the listener on {EndPoint}, not {endpoint}.", nameof(endpoint));
        return ValueTask.FromResult(Interlocked.Exchange(ref listener, null)
            ?? throw new InvalidOperationException($"The listener on {EndPoint} was already handed out; a node binds once."));
    }

    /// <summary>Closes the listener if no node took it (a node that did closes it when it stops).</summary>
    public ValueTask DisposeAsync() => Interlocked.Exchange(ref listener, null)?.DisposeAsync() ?? ValueTask.CompletedTask;
}
