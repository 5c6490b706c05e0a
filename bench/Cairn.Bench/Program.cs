using BenchmarkDotNet.Running;

BenchmarkSwitcher.FromAssembly(typeof(Cairn.Bench.BenchScratch).Assembly).Run(args);
