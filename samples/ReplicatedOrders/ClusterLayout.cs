using System.Net;
using System.Text.Json;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>
/// The three nodes' addresses (Raft and client port each), kept in <c>cluster.json</c> in the data folder so every
/// process of the sample (nodes, writer, killer) agrees on them.
/// </summary>
internal sealed record ClusterLayout(int[] RaftPorts, int[] ClientPorts)
{
    public const int NodeCount = 3;

    public IPEndPoint Raft(int node) => new(IPAddress.Loopback, RaftPorts[node]);

    public IPEndPoint Client(int node) => new(IPAddress.Loopback, ClientPorts[node]);

    public static string NodePath(string data, int node) => Path.Combine(data, $"node{node}");

    public static string PidFile(string data, int node) => Path.Combine(data, $"node{node}.pid");

    /// <summary>The layout in <paramref name="data"/>, or the fixed default ports written there for hand-run nodes.</summary>
    public static ClusterLayout LoadOrCreate(string data)
    {
        var file = Path.Combine(data, "cluster.json");
        if (File.Exists(file))
            return JsonSerializer.Deserialize<ClusterLayout>(File.ReadAllText(file))
                ?? throw new InvalidDataException($"{file} holds no cluster layout.");
        return Save(data, new ClusterLayout([7001, 7002, 7003], [7101, 7102, 7103]));
    }

    /// <summary>
    /// A layout on ports free now (the demo's, so it never collides with a cluster already running on the defaults),
    /// chosen below the range the OS hands out on its own (<see cref="ListenPorts"/>), so no outgoing connection takes one
    /// before its node binds it.
    /// </summary>
    public static ClusterLayout CreateOnFreePorts(string data)
    {
        var ports = ListenPorts.Pick(2 * NodeCount);
        return Save(data, new ClusterLayout(ports[..NodeCount], ports[NodeCount..]));
    }

    private static ClusterLayout Save(string data, ClusterLayout layout)
    {
        Directory.CreateDirectory(data);
        File.WriteAllText(Path.Combine(data, "cluster.json"), JsonSerializer.Serialize(layout));
        return layout;
    }
}
