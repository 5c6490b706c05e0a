using System.Net;
using Cairn;
using Cairn.Cluster;
using Cairn.Cluster.NodeHost;

// One cluster node for the process nemesis: started by the test with NodeHostArguments, killed, paused and restarted
// by it, and ended by the end of its standard input (the test host gone) if nothing kills it first.
var arguments = NodeHostArguments.Parse(args);
using var dialler = new ProxyDialler(arguments);
var options = new ClusterNodeOptions
{
    DirectoryPath = arguments.DirectoryPath,
    LocalEndPoint = arguments.Self,
    Members = arguments.FoundingMembers,
    SnapshotInterval = arguments.SnapshotInterval,
    Dialler = dialler,
    // As the in-process cluster tests: longer than DotNext's 150-300 ms, so two loaded cores do not keep elections failing.
    LowerElectionTimeout = 500,
    UpperElectionTimeout = 1000,
    Storage = new StorageOptions(Path.Combine(arguments.DirectoryPath, "data"))
    {
        // A SIGKILLed run's file lock can outlive it while the kernel tears its io_uring down; the restart waits for it.
        LockWaitTimeout = TimeSpan.FromMinutes(2),
    },
};
var node = await ClusterNode.StartAsync(options);
await using (node)
{
    await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, arguments.ClientPort));
    await using var control = new ControlServer(node, arguments.ControlPort);
    Console.WriteLine($"node {arguments.Node} serving: raft {arguments.Self}, clients {server.EndPoint}, control port {arguments.ControlPort}");
    await Console.In.ReadToEndAsync();
    Console.WriteLine($"node {arguments.Node}: standard input ended, stopping");
}
