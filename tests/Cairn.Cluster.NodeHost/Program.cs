using System.Net;
using Cairn;
using Cairn.Cluster;
using Cairn.Cluster.NodeHost;
using Microsoft.Extensions.Logging;

// One cluster node for the process nemesis: started by the test with NodeHostArguments, killed, paused and restarted
// by it, and ended by the end of its standard input (the test host gone) if nothing kills it first.
var arguments = NodeHostArguments.Parse(args);
// The node's own and its Raft member's logs on standard output, which the campaign keeps when it fails: a node that
// stops electing or following says why there, with times to set beside the nemesis log.
using var loggers = LoggerFactory.Create(logging => logging
    .SetMinimumLevel(LogLevel.Information)
    .AddSimpleConsole(console =>
    {
        console.SingleLine = true;
        console.TimestampFormat = "HH:mm:ss.fff ";
        console.UseUtcTimestamp = true;
    }));
using var dialler = new ProxyDialler(arguments);
var options = new ClusterNodeOptions
{
    DirectoryPath = arguments.DirectoryPath,
    LocalEndPoint = arguments.Self,
    Members = arguments.FoundingMembers,
    SnapshotInterval = arguments.SnapshotInterval,
    Dialler = dialler,
    // The library's defaults unless the test chose otherwise (a campaign on loaded cores chooses longer ones).
    LowerElectionTimeout = arguments.ElectionTimeout.Lower,
    UpperElectionTimeout = arguments.ElectionTimeout.Upper,
    Storage = new StorageOptions(Path.Combine(arguments.DirectoryPath, "data"))
    {
        // A SIGKILLed run's file lock can outlive it while the kernel tears its io_uring down; the restart waits for it.
        LockWaitTimeout = TimeSpan.FromMinutes(2),
        LoggerFactory = loggers,
    },
};
ClusterNode node;
try
{
    node = await ClusterNode.StartAsync(options);
}
catch (Exception refused)
{
    // A restart the cause still blocks (a full disk): said clearly, with the exception naming the file, then an exit the supervisor knows.
    Console.WriteLine($"node {arguments.Node}: could not start: {refused}");
    return NodeHostExitCodes.StartRefused;
}

await using (node)
{
    await using var server = ClusterNodeServer.Start(node, new IPEndPoint(IPAddress.Loopback, arguments.ClientPort));
    await using var control = new ControlServer(node, arguments.ControlPort);
    Console.WriteLine($"node {arguments.Node} serving: raft {arguments.Self}, clients {server.EndPoint}, control port {arguments.ControlPort}");
    if (await HostEnd.WaitAsync(Console.In, node.Failure) is { } failure)
    {
        // Fail-stop: the process ends at once, as a crash would (nothing is closed on a failed environment), and the
        // test's supervisor, seeing this exit code, starts it again, which replays its log.
        Console.WriteLine($"node {arguments.Node}: {failure.Message}");
        Console.WriteLine(failure.Cause);
        Console.Out.Flush();
        Environment.Exit(NodeHostExitCodes.NodeFailed);
    }
    else
    {
        Console.WriteLine($"node {arguments.Node}: standard input ended, stopping");
    }
}

return 0;
