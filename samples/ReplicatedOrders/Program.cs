// Three Cairn.Cluster nodes on localhost, each its own process. One command runs it all:
//   dotnet run -c Release --project samples/ReplicatedOrders            (the demo: start, write, kill the leader, go on)
// or by hand, in four terminals:
//   dotnet run -c Release --project samples/ReplicatedOrders -- node 0   (and node 1, node 2)
//   dotnet run -c Release --project samples/ReplicatedOrders -- write --count 1000
//   dotnet run -c Release --project samples/ReplicatedOrders -- kill-leader
using Cairn.Samples.ReplicatedOrders;

var command = args.Length > 0 ? args[0] : "demo";
var options = SampleArguments.Parse(args.Skip(1).ToArray());
try
{
    return command switch
    {
        "demo" => await Demo.RunAsync(options),
        "node" => await NodeHost.RunAsync(options),
        "write" => await Writer.RunAsync(options),
        "kill-leader" => await LeaderKiller.RunAsync(options),
        "status" => await StatusPrinter.RunAsync(options),
        _ => SampleArguments.Usage($"unknown command '{command}'"),
    };
}
catch (SampleUsageException e)
{
    return SampleArguments.Usage(e.Message);
}
