using System.Net;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// The network a nemesis controls between N nodes: one <see cref="DirectedLink"/> per ordered pair of nodes and
/// one <see cref="LinkProxy"/> per ordered pair, where node i dials <see cref="ProxyEndPoint"/>(i, j) to reach
/// node j. Because each dialler has its own proxy to each target, every connection's sender is known, and each
/// direction between two nodes is set apart from the other (a one-way partition is two settings).
/// </summary>
public sealed class NemesisNetwork : Schedule.INetworkNemesis, IAsyncDisposable
{
    private readonly DirectedLink[,] links;
    private readonly LinkProxy?[,] proxies;

    /// <param name="nodes">Where each node listens: node i is <c>nodes[i]</c>.</param>
    public NemesisNetwork(IReadOnlyList<EndPoint> nodes)
    {
        ArgumentNullException.ThrowIfNull(nodes);
        if (nodes.Count < 2)
            throw new ArgumentException($"A network needs at least two nodes; {nodes.Count} given.", nameof(nodes));
        if (nodes.Distinct().Count() != nodes.Count)
            throw new ArgumentException($"Each node needs its own address; given: {string.Join(", ", nodes)}.", nameof(nodes));

        NodeCount = nodes.Count;
        links = new DirectedLink[NodeCount, NodeCount];
        proxies = new LinkProxy?[NodeCount, NodeCount];
        foreach (var (from, to) in OrderedPairs())
            links[from, to] = new DirectedLink(from, to);
        try
        {
            foreach (var (from, to) in OrderedPairs())
                proxies[from, to] = new LinkProxy(nodes[to], links[from, to], links[to, from]);
        }
        catch
        {
            DisposeAsync().AsTask().GetAwaiter().GetResult();
            throw;
        }
    }

    public int NodeCount { get; }

    /// <summary>Connections forwarding now, over all proxies.</summary>
    public int LiveConnections => OrderedPairs().Sum(pair => Proxy(pair.From, pair.To).LiveConnections);

    /// <summary>Connections node <paramref name="from"/> opened to node <paramref name="to"/> that are forwarding (or held) now.</summary>
    public int LiveConnectionsDialled(int from, int to) => Proxy(from, to).LiveConnections;

    /// <summary>Where node <paramref name="from"/> dials to reach node <paramref name="to"/>.</summary>
    public IPEndPoint ProxyEndPoint(int from, int to) => Proxy(from, to).EndPoint;

    /// <summary>The bytes node <paramref name="from"/> sends node <paramref name="to"/>.</summary>
    public DirectedLink Link(int from, int to)
    {
        CheckPair(from, to);
        return links[from, to];
    }

    /// <summary>Sets what happens to the bytes <paramref name="from"/> sends <paramref name="to"/>; open connections follow at once.</summary>
    public void Set(int from, int to, LinkBehaviour behaviour)
    {
        Link(from, to).Set(behaviour);
        if (behaviour.Mode == LinkMode.Reset)
        {
            Proxy(from, to).CutAll();
            Proxy(to, from).CutAll();
        }
    }

    /// <summary>Sets both directions between <paramref name="a"/> and <paramref name="b"/>.</summary>
    public void SetBoth(int a, int b, LinkBehaviour behaviour)
    {
        Set(a, b, behaviour);
        Set(b, a, behaviour);
    }

    /// <summary>Bytes from <paramref name="from"/> to <paramref name="to"/> are dropped while the other way passes.</summary>
    public void OneWay(int from, int to)
    {
        Set(from, to, LinkBehaviour.Drop);
        Set(to, from, LinkBehaviour.Pass);
    }

    /// <summary>
    /// Splits the nodes into <paramref name="groups"/>: every link between two groups gets <paramref name="across"/>
    /// (a silent partition by default), every link inside a group passes. Each node must be in exactly one group.
    /// </summary>
    public void Partition(IReadOnlyList<IReadOnlyList<int>> groups, LinkBehaviour? across = null)
    {
        var groupOf = GroupOfEachNode(groups);
        foreach (var (from, to) in OrderedPairs())
            Set(from, to, groupOf[from] == groupOf[to] ? LinkBehaviour.Pass : across ?? LinkBehaviour.Drop);
    }

    /// <summary>Every link passes again.</summary>
    public void Heal()
    {
        foreach (var (from, to) in OrderedPairs())
            Set(from, to, LinkBehaviour.Pass);
    }

    public async ValueTask DisposeAsync()
    {
        var closing = new List<Task>();
        foreach (var proxy in proxies)
        {
            if (proxy is not null)
                closing.Add(proxy.DisposeAsync().AsTask());
        }

        await Task.WhenAll(closing);
    }

    private int[] GroupOfEachNode(IReadOnlyList<IReadOnlyList<int>> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        var groupOf = Enumerable.Repeat(-1, NodeCount).ToArray();
        for (var group = 0; group < groups.Count; group++)
        {
            foreach (var node in groups[group])
            {
                if (node < 0 || node >= NodeCount)
                    throw new ArgumentOutOfRangeException(nameof(groups), node, $"Node {node} is not one of the {NodeCount} nodes.");
                if (groupOf[node] != -1)
                    throw new ArgumentException($"Node {node} is in groups {groupOf[node]} and {group}.", nameof(groups));
                groupOf[node] = group;
            }
        }

        var missing = Array.IndexOf(groupOf, -1);
        if (missing >= 0)
            throw new ArgumentException($"Node {missing} is in no group.", nameof(groups));
        return groupOf;
    }

    private LinkProxy Proxy(int from, int to)
    {
        CheckPair(from, to);
        return proxies[from, to]!;
    }

    private void CheckPair(int from, int to)
    {
        if (from < 0 || from >= NodeCount)
            throw new ArgumentOutOfRangeException(nameof(from), from, $"Not one of the {NodeCount} nodes.");
        if (to < 0 || to >= NodeCount)
            throw new ArgumentOutOfRangeException(nameof(to), to, $"Not one of the {NodeCount} nodes.");
        if (from == to)
            throw new ArgumentException($"Node {from} does not dial itself through the network.", nameof(to));
    }

    private IEnumerable<(int From, int To)> OrderedPairs()
    {
        for (var from = 0; from < NodeCount; from++)
        {
            for (var to = 0; to < NodeCount; to++)
            {
                if (from != to)
                    yield return (from, to);
            }
        }
    }
}
