using Cairn.Cluster;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>Connections to the three nodes' client servers, and what the sample asks through them.</summary>
internal sealed class ClusterAccess(ClusterLayout layout) : IAsyncDisposable
{
    public const string Tree = "orders";

    private readonly RemoteNodeConnection[] connections = Enumerable.Range(0, ClusterLayout.NodeCount)
        .Select(i => new RemoteNodeConnection(layout.Raft(i), layout.Client(i))).ToArray();

    public IReadOnlyList<IClusterNodeConnection> Connections => connections;

    public static byte[] OrderKey(int order) => System.Text.Encoding.UTF8.GetBytes($"order-{order:D6}");

    public static byte[] OrderValue(int order) => System.Text.Encoding.UTF8.GetBytes($"{{\"order\":{order},\"item\":\"widget\",\"quantity\":{order % 7 + 1}}}");

    /// <summary>Each node's status, or null for a node that does not answer (within a second).</summary>
    public async Task<ClusterNodeStatus?[]> StatusesAsync() => await Task.WhenAll(connections.Select(async connection =>
    {
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(1));
        try
        {
            return await connection.GetStatusAsync(deadline.Token);
        }
        catch (Exception e) when (e is IOException or OperationCanceledException)
        {
            return null;
        }
    }));

    /// <summary>The index of the node that leads in the highest term any node reports, or null while none does.</summary>
    public async Task<(int Node, long Term)?> LeaderAsync()
    {
        var statuses = await StatusesAsync();
        var leading = Enumerable.Range(0, statuses.Length).Where(i => statuses[i] is { IsLeader: true }).ToArray();
        return leading.Length == 0 ? null : leading.Select(i => (i, statuses[i]!.Term)).MaxBy(l => l.Term);
    }

    public static void Print(ClusterNodeStatus?[] statuses)
    {
        for (var i = 0; i < statuses.Length; i++)
            Console.WriteLine(statuses[i] is { } s
                ? $"    node {i}: {(s.IsLeader ? "LEADER  " : "follower")} term {s.Term,3}  commit {s.CommitIndex,6}  applied {s.AppliedIndex,6}"
                : $"    node {i}: not answering");
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var connection in connections)
            await connection.DisposeAsync();
    }
}
