using Cairn.Cluster.Bench;

// Cairn.Cluster's bench mode (issue 28 item 5; results in docs/benchmarks.md, "Cairn.Cluster"). Every node runs in
// this process with its Raft traffic over loopback TCP, and all of them and the single node share this machine's one
// disk: a real cluster has a disk per node and a network between them (the roundtrip part says what that adds).
//   dotnet build bench/Cairn.Cluster.Bench -c Release -o .scratch/cluster-bench-bin
//   dotnet .scratch/cluster-bench-bin/Cairn.Cluster.Bench.dll [throughput|failover|roundtrip|all|split] [options]
//   (split: where a replication round's time goes, per stage, at each --callers count; not part of "all")
//   (floor: one entry appended and flushed by DotNext's log, per page kind, against one O_DIRECT|O_DSYNC write; not
//   part of "all"; --rounds x --writes entries per kind)
// Options: --callers 16,64  --rounds 4  --writes 100 (per caller per round)  --kills 20  --background 2
//          --election 150-300 (the Raft election timeout range, ms; DotNext's heartbeat is a third of the lower bound)
var mode = args.Length > 0 && !args[0].StartsWith("--", StringComparison.Ordinal) ? args[0] : "all";
var options = BenchArguments.Parse(args.SkipWhile(a => !a.StartsWith("--", StringComparison.Ordinal)).ToArray());
Console.WriteLine($"Cairn.Cluster bench: {mode}, {Environment.ProcessorCount} cores, load {Measure.Load()}");
if (mode is "throughput" or "all")
    await ThroughputBench.RunAsync(options.Callers, options.Rounds, options.Writes, options.LowerElection, options.UpperElection);
if (mode is "roundtrip" or "all")
    await RoundTripBench.RunAsync(options.Rounds, options.Writes, options.LowerElection, options.UpperElection);
if (mode is "failover" or "all")
    await FailoverBench.RunAsync(options.Kills, options.Background, options.LowerElection, options.UpperElection);
if (mode is "split")
    await SplitBench.RunAsync(options.Callers, options.Rounds, options.Writes, options.LowerElection, options.UpperElection);
if (mode is "floor")
    await FlushFloorBench.RunAsync(options.Rounds, options.Writes, entryBytes: 1024);
if (mode is not ("throughput" or "roundtrip" or "failover" or "all" or "split" or "floor"))
{
    Console.Error.WriteLine($"Unknown mode '{mode}': throughput, failover, roundtrip, all, split or floor.");
    return 2;
}

return 0;
