using System.Net;

namespace Cairn.Cluster.InProcess;

/// <summary>
/// The nodes of an in-process cluster by slot: each slot has a fixed address and holds the node running there, or
/// none while it is stopped. Shared as source by the tests' <c>ClusterNodes</c> and the cluster bench's
/// <c>BenchCluster</c> (linked into both projects, so the bench does not reference the test project); how a node is
/// started (listener, dialler, folders, timeouts) stays with each owner.
/// </summary>
internal sealed class ClusterNodeSlots(EndPoint[] addresses)
{
    private readonly ClusterNode?[] nodes = new ClusterNode?[addresses.Length];

    public int Count => nodes.Length;

    public ClusterNode this[int slot] => nodes[slot] ?? throw new InvalidOperationException($"Node {slot} is stopped.");

    /// <summary>Slot <paramref name="slot"/>'s address: its id in the cluster.</summary>
    public EndPoint Address(int slot) => addresses[slot];

    public bool IsRunning(int slot) => nodes[slot] is not null;

    /// <summary>The node in <paramref name="slot"/>, or null if it is stopped (for a poll that races a stop).</summary>
    public ClusterNode? RunningAt(int slot) => Volatile.Read(ref nodes[slot]);

    public IEnumerable<int> Running() => Enumerable.Range(0, Count).Where(IsRunning);

    /// <summary>Puts a node that has just started into its slot.</summary>
    public void Started(int slot, ClusterNode node) => nodes[slot] = node;

    /// <summary>Stops the node in <paramref name="slot"/>, if one runs there: disposed, without a hand-over.</summary>
    public async Task StopAsync(int slot)
    {
        if (Interlocked.Exchange(ref nodes[slot], null) is { } stopping)
            await stopping.DisposeAsync();
    }

    public async Task StopAllAsync()
    {
        for (var slot = 0; slot < Count; slot++)
            await StopAsync(slot);
    }

    /// <summary>A client's connection to <paramref name="slot"/>: whichever node runs there at each call (a stopped slot throws <see cref="ObjectDisposedException"/>).</summary>
    public IClusterNodeConnection Connection(int slot) => new SlotConnection(this, slot);

    /// <summary>Each slot's leader (as <paramref name="nameLeader"/> names it), term, commit and applied index, or that it is stopped.</summary>
    public string Describe(Func<EndPoint?, string> nameLeader) => string.Join("; ", Enumerable.Range(0, Count).Select(i => nodes[i] is { } n
        ? $"node {i}: leader {nameLeader(n.Leader)}, term {n.Term}, commit {n.CommitIndex}, applied {n.AppliedIndex}"
        : $"node {i}: stopped"));

    private sealed class SlotConnection(ClusterNodeSlots owner, int slot) : IClusterNodeConnection
    {
        public EndPoint LocalEndPoint => owner.Address(slot);

        public Task<ClusterWriteResult> WriteAsync(ClusterCommand command, CancellationToken cancellationToken = default)
            => Current().WriteAsync(command, cancellationToken);

        public Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default)
            => Current().ReadAsync(tree, key, cancellationToken);

        public Task<byte[]?> ReadAppliedAsync(string tree, byte[] key, long minimumIndex, CancellationToken cancellationToken = default)
            => Current().ReadAppliedAsync(tree, key, minimumIndex, cancellationToken);

        private ClusterNode Current() => owner.nodes[slot] ?? throw new ObjectDisposedException($"node {slot}", "The node is stopped.");
    }
}
