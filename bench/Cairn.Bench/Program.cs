using BenchmarkDotNet.Running;
using Cairn.Bench.SelfCheck;

// --self-check [store...]: a quick functional check of the peer bindings and stores, no benchmarking.
if (args.Length > 0 && args[0] == "--self-check")
    return StoreSelfCheck.Run(args[1..], Console.Out);

BenchmarkSwitcher.FromAssembly(typeof(Cairn.Bench.BenchScratch).Assembly).Run(args);
return 0;
