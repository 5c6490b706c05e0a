namespace Cairn.PackageTests;

/// <summary>
/// The package 'Cairn.Cluster' as a user gets it: its files and dependencies, and a program outside the repository that
/// restores it by name from the local feed and runs three nodes in one process: a write through a client, a read, the
/// leader stopped, a write the new leader acknowledges, and the two writes read back from each survivor.
/// </summary>
[Collection(PackageCollection.Name)]
public sealed class ClusterPackageTests(PackedCairn packed)
{
    private const string Program = """
        using System.Net;
        using System.Text;
        using Cairn.Cluster;
        using Microsoft.AspNetCore.Connections;
        using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
        using Microsoft.Extensions.Logging.Abstractions;
        using Microsoft.Extensions.Options;

        string root = args[0];
        // A ceiling that only a hang reaches: the program waits for outcomes, never for a fixed time.
        using var hang = new CancellationTokenSource(TimeSpan.FromMinutes(3));
        // Each node's listener is bound before any node starts (the OS picks the port), since every member's list names all three.
        var transport = new SocketTransportFactory(Options.Create(new SocketTransportOptions()), NullLoggerFactory.Instance);
        var listeners = new IConnectionListener[3];
        for (int i = 0; i < 3; i++)
            listeners[i] = await transport.BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
        EndPoint[] members = listeners.Select(l => l.EndPoint).ToArray();
        var nodes = await Task.WhenAll(Enumerable.Range(0, 3).Select(i => ClusterNode.StartAsync(new ClusterNodeOptions
        {
            DirectoryPath = Path.Combine(root, $"node{i}"),
            LocalEndPoint = members[i],
            Members = members,
            Listener = new BoundListener(listeners[i]),
        })));

        using var client = new ClusterClient(nodes);
        var first = await client.WriteAsync("orders", [ClusterOperation.Put("order-1"u8.ToArray(), "qty 3"u8.ToArray())], hang.Token);
        var read = await client.ReadAsync("orders", "order-1"u8.ToArray(), hang.Token);
        Console.WriteLine($"cluster: wrote at index {first.LogIndex}, read {Encoding.UTF8.GetString(read!)}");

        int leader;
        while ((leader = Array.FindIndex(nodes, n => n.IsLeader)) < 0)
            await Task.Delay(10, hang.Token);
        await nodes[leader].DisposeAsync();
        var second = await client.WriteAsync("orders", [ClusterOperation.Put("order-2"u8.ToArray(), "qty 5"u8.ToArray())], hang.Token);
        Console.WriteLine($"failover: leader stopped, next write at index {second.LogIndex} (after {first.LogIndex})");
        foreach (var survivor in Enumerable.Range(0, 3).Where(i => i != leader))
        {
            var one = await nodes[survivor].ReadAppliedAsync("orders", "order-1"u8.ToArray(), second.LogIndex, hang.Token);
            var two = await nodes[survivor].ReadAppliedAsync("orders", "order-2"u8.ToArray(), second.LogIndex, hang.Token);
            Console.WriteLine($"survivor: {Encoding.UTF8.GetString(one!)}, {Encoding.UTF8.GetString(two!)}");
        }

        foreach (var survivor in Enumerable.Range(0, 3).Where(i => i != leader))
            await nodes[survivor].DisposeAsync();
        return 0;

        // Hands a node the listener bound for it above.
        sealed class BoundListener(IConnectionListener listener) : IConnectionListenerFactory
        {
            public ValueTask<IConnectionListener> BindAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
                => endpoint.Equals(listener.EndPoint) ? ValueTask.FromResult(listener)
                    : throw new ArgumentException($"bound {listener.EndPoint}, asked for {endpoint}", nameof(endpoint));
        }
        """;

    [Fact]
    public void Cluster_package_holds_the_assembly_its_docs_readme_and_licence_and_depends_on_Cairn_DotNext_and_ASP_NET_Core()
    {
        var package = packed.Packages["Cairn.Cluster"];
        var files = PackedCairn.ContentEntries(package);
        // Not Cairn.Pal: the package 'Cairn' carries it.
        Assert.Equal(["Cairn.Cluster.nuspec", "LICENSE", "README.md", "lib/net10.0/Cairn.Cluster.dll", "lib/net10.0/Cairn.Cluster.xml"], files);

        var nuspec = PackedCairn.Manifest(package, "Cairn.Cluster");
        var ns = nuspec.Root!.Name.Namespace;
        var metadata = nuspec.Root.Element(ns + "metadata")!;
        Assert.Equal("README.md", metadata.Element(ns + "readme")!.Value);
        Assert.False(string.IsNullOrWhiteSpace(metadata.Element(ns + "releaseNotes")?.Value));
        var dependencies = metadata.Descendants(ns + "dependency")
            .Select(d => ((string?)d.Attribute("id"), (string?)d.Attribute("version"))).Order().ToArray();
        // A new dependency of the package is a deliberate change of this list.
        Assert.Equal([("Cairn", packed.Version), ("DotNext.Net.Cluster", packed.PinnedVersion("DotNext.Net.Cluster")),
            ("System.IO.Hashing", packed.PinnedVersion("System.IO.Hashing"))], dependencies);
        // DotNext's custom transport takes Kestrel's connection abstractions: the framework reference reaches the user.
        Assert.Equal(["Microsoft.AspNetCore.App"], metadata.Descendants(ns + "frameworkReference").Select(f => (string?)f.Attribute("name")));

        var docs = System.Xml.Linq.XDocument.Load(new MemoryStream(PackedCairn.Read(package, "lib/net10.0/Cairn.Cluster.xml")));
        Assert.Contains(docs.Descendants("member"), m => (string?)m.Attribute("name") == "T:Cairn.Cluster.ClusterClient");
    }

    [Fact]
    public void A_program_restores_Cairn_Cluster_by_name_and_runs_three_nodes_through_a_failover()
    {
        using var consumer = new Consumer(packed, Program, "", ("Cairn.Cluster", packed.Version));
        var data = Path.Combine(packed.WorkDirectory, "cluster");
        Directory.CreateDirectory(data);

        consumer.Dotnet("restore");
        consumer.Dotnet("build", "--no-restore", "-c", "Release");
        // The cluster package and the engine under it (a dependency) are the ones packed here, not a cached build.
        foreach (var id in new[] { "Cairn", "Cairn.Cluster" })
            Assert.True(File.Exists(Path.Combine(consumer.Restored(id, packed.Version), $"{id.ToLowerInvariant()}.{packed.Version.ToLowerInvariant()}.nupkg")), $"{id} restored");

        var run = Tool.Run("dotnet", [Path.Combine(consumer.Directory, "bin", "Release", "net10.0", "Consumer.dll"), data], consumer.Directory,
            TimeSpan.FromMinutes(5), consumer.Environment());

        Assert.Contains("cluster: wrote at index ", run.Output);
        Assert.Contains(", read qty 3", run.Output);
        Assert.Contains("failover: leader stopped, next write at index ", run.Output);
        Assert.Equal(2, run.Output.Split('\n').Count(line => line.Trim() == "survivor: qty 3, qty 5"));
        // Each node kept its environment and Raft log in its own folder.
        foreach (var node in new[] { "node0", "node1", "node2" })
        {
            Assert.True(Directory.Exists(Path.Combine(data, node, "data")), $"{node}/data");
            Assert.True(Directory.Exists(Path.Combine(data, node, "raft")), $"{node}/raft");
        }
    }
}
