using System.Globalization;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>The sample's few options: <c>node INDEX</c>, <c>--data DIR</c>, <c>--count N</c>.</summary>
internal sealed record SampleArguments(string DataPath, int? NodeIndex, int Count)
{
    /// <summary>Where the demo and the hand-run commands keep the cluster (its layout file, each node's folder and pid file).</summary>
    public static readonly string DefaultDataPath = Path.Combine(Environment.CurrentDirectory, "replicated-orders-data");

    public static SampleArguments Parse(string[] args)
    {
        string data = DefaultDataPath;
        int? node = null;
        var count = 200;
        for (var i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--data" when i + 1 < args.Length:
                    data = Path.GetFullPath(args[++i]);
                    break;
                case "--count" when i + 1 < args.Length && int.TryParse(args[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n > 0:
                    count = n;
                    i++;
                    break;
                default:
                    if (node is null && int.TryParse(args[i], NumberStyles.None, CultureInfo.InvariantCulture, out var index) && index < ClusterLayout.NodeCount)
                        node = index;
                    else
                        throw new SampleUsageException($"'{args[i]}' is not an option here");
                    break;
            }
        }

        return new SampleArguments(data, node, count);
    }

    public static int Usage(string problem)
    {
        Console.Error.WriteLine($"replicated-orders: {problem}");
        Console.Error.WriteLine("""
            usage: ReplicatedOrders [demo] [--data DIR]        start three nodes, write, kill the leader, go on, check
                   ReplicatedOrders node 0|1|2 [--data DIR]    run one node (until Ctrl+C or its input closes)
                   ReplicatedOrders write [--count N] [--data DIR]   write N orders through the cluster
                   ReplicatedOrders kill-leader [--data DIR]   SIGKILL the node that leads now
                   ReplicatedOrders status [--data DIR]        each node's leader, term and indexes
            DIR defaults to ./replicated-orders-data; its cluster.json says the nodes' ports (7001-7003 Raft,
            7101-7103 clients unless the demo chose free ones).
            """);
        return 2;
    }
}

/// <summary>A wrong command line: the usage is printed, the exit code is 2.</summary>
internal sealed class SampleUsageException(string message) : Exception(message);
