using BenchmarkDotNet.Running;
using Cairn.Bench.SelfCheck;

// --self-check [store...]: a quick functional check of the peer bindings and stores, no benchmarking.
if (args.Length > 0 && args[0] == "--self-check")
    return StoreSelfCheck.Run(args[1..], Console.Out);

// --journal-survey: journal entry sizes, codec costs and durable write costs (docs/decisions.md, journal format).
if (args.Length > 0 && args[0] == "--journal-survey")
    return Cairn.Bench.Journal.JournalSurvey.Run(Console.Out);

// --recovery-survey [--keys N] [--puts N] [--journal-mib N]: open time and replay rate after a crash
// with a full journal (docs/benchmarks.md, Recovery); exits non-zero if committed keys are lost.
if (args.Length > 0 && args[0] == "--recovery-survey")
    return Cairn.Bench.Recovery.RecoverySurvey.Run(args[1..], Console.Out);

// --recovery-open DIR KEYS LAST CLEAN: one timed open and read-back, the child process of --recovery-survey --fresh-process.
if (args.Length == 5 && args[0] == "--recovery-open")
    return Cairn.Bench.Recovery.RecoveryRun.RunChild(args[1..], Console.Out);

// --journal-census DIR: page records a replay of DIR's journals would apply, and how many a later full copy makes moot.
if (args.Length == 2 && args[0] == "--journal-census")
    return Cairn.Bench.Recovery.JournalCensus.Run(args[1], Console.Out);

// --replay-cpu DIR [--rounds N] [--threads N]: the replay's decode and apply CPU alone, DIR's journals applied in memory N times
// (--threads: split by page run over N threads, wall per round).
if (args.Length >= 2 && args[0] == "--replay-cpu")
    return Cairn.Bench.Recovery.ReplayCpu.Run(args[1..], Console.Out);

// --recovery-kill [--repeat N] [--puts N] [--learn-syncs N]: a writer child process with default options SIGKILLed at the worst
// moment (the most journal since the last sync the defaults let pile up), then cold reopens timed (docs/benchmarks.md, Issue 27).
if (args.Length > 0 && args[0] == "--recovery-kill")
    return Cairn.Bench.Recovery.WorstMomentKill.Run(args[1..], Console.Out);

// --recovery-kill-writer DIR PUTS LEARN_SYNCS: the writer child of --recovery-kill.
if (args.Length == 4 && args[0] == "--recovery-kill-writer")
    return Cairn.Bench.Recovery.WorstMomentWriter.Run(args[1..], Console.Out);

// --concurrent-interleaved [--callers N,..] [--rounds N] [--commits N] [--stores a,..] [--baselines a,..]: the concurrent
// durable-commit comparison with the stores measured in alternating rounds (ratios that survive a noisy disk).
if (args.Length > 0 && args[0] == "--concurrent-interleaved")
    return Cairn.Bench.Durability.Interleaved.InterleavedConcurrentRun.Run(args[1..], Console.Out);

// --reads-interleaved [--keys N] [--rounds N] [--reads N] [--stores a,..]: point reads in their own transaction and scans,
// every store open at once and measured in alternating rounds (ratios that survive a loaded machine).
if (args.Length > 0 && args[0] == "--reads-interleaved")
    return Cairn.Bench.KeyValue.Interleaved.InterleavedReadRun.Run(args[1..], Console.Out);

// --reads-oneshot [--keys N] [--rounds N] [--stores a,..] [--jit default|tc-off]: one full scan in a fresh process per store
// (fill, read each key once, scan), the stores alternating round by round (docs/benchmarks.md, Reads).
if (args.Length > 0 && args[0] == "--reads-oneshot")
    return Cairn.Bench.KeyValue.Interleaved.OneShotScanRun.Run(args[1..], Console.Out);

// --reads-oneshot-child STORE KEYS: the child process of --reads-oneshot.
if (args.Length == 3 && args[0] == "--reads-oneshot-child")
    return Cairn.Bench.KeyValue.Interleaved.OneShotScanRun.RunChild(args[1..], Console.Out);

// --shared-journals [--branches N] [--callers N,..] [--rounds N] [--commits N] [--iops-cap N]: a root and its branches committing at
// once, journals shared against separate, interleaved round by round (docs/benchmarks.md, Shared journals).
if (args.Length > 0 && args[0] == "--shared-journals")
    return Cairn.Bench.Sharing.SharedJournalRun.Run(args[1..], Console.Out);

// --hash-startup: the cost of one page checksum in a young process, window by window (docs/benchmarks.md, Checksums).
if (args.Length > 0 && args[0] == "--hash-startup")
    return Cairn.Bench.Hashing.HashStartupRun.Run(args[1..], Console.Out);

// --hash-interleaved [--rounds N] [--millis N] [--kernels] [--sizes N,..]: Cairn's own XXH3 against System.IO.Hashing's, warm, interleaved (docs/benchmarks.md, Checksums).
if (args.Length > 0 && args[0] == "--hash-interleaved")
    return Cairn.Bench.Hashing.HashInterleavedRun.Run(args[1..], Console.Out);

// --fill-interleaved [--keys N] [--batch N] [--rounds N] [--modes lazy,durable] [--orders sequential,random,append]: fills
// against LMDB, rate, size on disk and device bytes written (docs/benchmarks.md, Fills).
if (args.Length > 0 && args[0] == "--fill-interleaved")
    return Cairn.Bench.Fill.FillRun.Run(args[1..], Console.Out);

// --replica [--rounds N] [--ops N] [--callers N] [--value N]: replica apply rate against the primary's commit rate with
// 16 WriteAsync callers, and the live replica's lag (docs/benchmarks.md, Journal shipping).
if (args.Length > 0 && args[0] == "--replica")
    return Cairn.Bench.Shipping.ReplicaRun.Run(args[1..], Console.Out);

// --backup [--mib N] [--rounds N]: backup throughput against the disk's sequential write rate and LMDB's env copy,
// and 16 merged writers' rate while a backup runs against without, interleaved (docs/benchmarks.md, Backup).
if (args.Length > 0 && args[0] == "--backup")
    return Cairn.Bench.Backups.BackupRun.Run(args[1..], Console.Out);

// --commit-breakdown [--commits N]: a single durable commit's latency against the journal write inside it (docs/benchmarks.md, Durable commits).
if (args.Length > 0 && args[0] == "--commit-breakdown")
    return Cairn.Bench.Durability.CommitBreakdown.Run(args[1..], Console.Out);

// --large-values [--values N,..] [--mib N] [--batch N] [--rounds N]: durable fills with large values (64 KiB by default, 100 per
// transaction) against LMDB's synced commits, interleaved (docs/benchmarks.md, Large values).
if (args.Length > 0 && args[0] == "--large-values")
    return Cairn.Bench.Fill.LargeValueRun.Run(args[1..], Console.Out);

// --merger-alloc-profile [--callers N,..] [--seconds S]: bytes allocated per merged put in steady state, by type
// (GCAllocationTick samples; docs/benchmarks.md, stop 43).
if (args.Length > 0 && args[0] == "--merger-alloc-profile")
    return Cairn.Bench.Durability.Allocations.MergerAllocationProfile.Run(args[1..], Console.Out);

BenchmarkSwitcher.FromAssembly(typeof(Cairn.Bench.BenchScratch).Assembly).Run(args);
return 0;
