using System.Globalization;
using System.Net;

namespace Cairn.Cluster.NodeHost;

/// <summary>
/// A node host's command line: which member it is, where its data goes, every member's Raft address, where it dials
/// each other member (the test's proxy for that pair), and its client and control ports. The test writes it
/// (<see cref="ToArguments"/>) and the host reads it (<see cref="Parse"/>), so the two cannot disagree.
/// <see cref="Members"/> lists every address the campaign may use, the first <see cref="Founders"/> of them the
/// founding members; a node started with 0 founders joins later (it waits to be added).
/// </summary>
public sealed record NodeHostArguments(
    int Node,
    string DirectoryPath,
    IReadOnlyList<IPEndPoint> Members,
    IReadOnlyList<IPEndPoint?> DialThrough,
    int ClientPort,
    int ControlPort)
{
    /// <summary>The node's Raft address, its identity.</summary>
    public IPEndPoint Self => Members[Node];

    /// <summary>How many of <see cref="Members"/>, from the first, found the cluster; 0 for a node that joins later.</summary>
    public int Founders { get; init; } = Members.Count;

    /// <summary>The node's <see cref="ClusterNodeOptions.SnapshotInterval"/>.</summary>
    public long SnapshotInterval { get; init; } = ClusterNodeOptions.DefaultSnapshotInterval;

    /// <summary>The members this node is founded with (none when it joins later).</summary>
    public IReadOnlyList<IPEndPoint> FoundingMembers => Members.Take(Founders).ToArray();

    public IReadOnlyList<string> ToArguments() =>
    [
        "--node", Node.ToString(CultureInfo.InvariantCulture),
        "--dir", DirectoryPath,
        "--members", string.Join(',', Members.Select(m => m.ToString())),
        "--dial-through", string.Join(',', DialThrough.Select(p => p?.ToString() ?? "-")),
        "--client-port", ClientPort.ToString(CultureInfo.InvariantCulture),
        "--control-port", ControlPort.ToString(CultureInfo.InvariantCulture),
        "--founders", Founders.ToString(CultureInfo.InvariantCulture),
        "--snapshot-interval", SnapshotInterval.ToString(CultureInfo.InvariantCulture),
    ];

    /// <summary>Reads the arguments <see cref="ToArguments"/> wrote; anything else is an <see cref="ArgumentException"/> naming it.</summary>
    public static NodeHostArguments Parse(IReadOnlyList<string> args)
    {
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        for (var i = 0; i < args.Count; i += 2)
        {
            if (!args[i].StartsWith("--", StringComparison.Ordinal) || i + 1 >= args.Count)
                throw new ArgumentException($"Expected '--name value' pairs; argument {i} is '{args[i]}'.", nameof(args));
            values[args[i][2..]] = args[i + 1];
        }

        string Value(string name) => values.TryGetValue(name, out var v) ? v : throw new ArgumentException($"Missing --{name}.", nameof(args));
        int Number(string name) => int.TryParse(Value(name), NumberStyles.None, CultureInfo.InvariantCulture, out var n)
            ? n : throw new ArgumentException($"--{name} is not a number: '{Value(name)}'.", nameof(args));
        IPEndPoint EndPoint(string text) => IPEndPoint.TryParse(text, out var ep) && ep.Port != 0
            ? ep : throw new ArgumentException($"Not an address with a port: '{text}'.", nameof(args));

        var members = Value("members").Split(',').Select(EndPoint).ToArray();
        var dial = Value("dial-through").Split(',').Select(p => p == "-" ? null : EndPoint(p)).ToArray();
        var node = Number("node");
        if (node >= members.Length)
            throw new ArgumentException($"--node {node} is not one of the {members.Length} members.", nameof(args));
        if (dial.Length != members.Length || dial[node] is not null || dial.Where((p, i) => i != node).Any(p => p is null))
            throw new ArgumentException($"--dial-through needs one proxy per other member and '-' for this node ({node}).", nameof(args));
        long NumberOr(string name, long otherwise) => !values.ContainsKey(name) ? otherwise
            : long.TryParse(Value(name), NumberStyles.None, CultureInfo.InvariantCulture, out var n) ? n
            : throw new ArgumentException($"--{name} is not a number: '{Value(name)}'.", nameof(args));

        var founders = (int)NumberOr("founders", members.Length);
        if (founders > members.Length || (founders > 0 && node >= founders))
            throw new ArgumentException($"--founders {founders} must name founding members among the {members.Length}, this node ({node}) one of them, or be 0.", nameof(args));
        return new NodeHostArguments(node, Value("dir"), members, dial, Number("client-port"), Number("control-port"))
        {
            Founders = founders,
            SnapshotInterval = NumberOr("snapshot-interval", ClusterNodeOptions.DefaultSnapshotInterval),
        };
    }
}
