using System.Diagnostics;
using System.Globalization;
using Cairn.Diagnostics;
using Cairn.Pal.Testing;

namespace Cairn.Bench.Sharing;

/// <summary>
/// <c>--shared-journals</c>: a root and its branches committing at once, their journals shared (one
/// vectored write for many environments) against separate (a journal each), and the root alone in its
/// group (its latency baseline). Every case is open for the whole run and the cases are measured round by
/// round in turn, the order rotating, so the disk's slow and fast phases fall on all of them alike. Each
/// environment has <c>callers</c> threads, each committing one 100-byte put per <c>BeginWrite</c>/<c>Commit</c>.
/// Reported per case: commits per second, p50/p99 commit latency of the root and of the branches, and
/// journal writes: commits per durable journal write and write system calls per journal write; with a group, the
/// limit of writes in flight it learnt and how many of its writes were on the device as each started, on average.
/// </summary>
public static class SharedJournalRun
{
    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var (branches, rounds, commits, callerCounts, depths, iopsCap) = Parse(args);
        string directory = BenchScratch.Directory("shared-journals");
        IopsCap? cap = null;
        if (iopsCap is { } iops)
        {
            try
            {
                cap = IopsCap.Enter(directory, iops);
            }
            catch (IopsCapUnavailableException e)
            {
                Directory.Delete(directory, recursive: true);
                Console.Error.WriteLine($"# --iops-cap {iops}: {e.Message}");
                return 2;
            }
        }
        output.WriteLine($"# shared journals: a root and {branches} branches, {rounds} measured rounds of {commits} commits per caller, " +
            $"cases interleaved; {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; {directory}" +
            (cap is null ? "" : $"; device {cap.Device} capped at {cap.Iops} write IOPS for this process (cgroup {cap.CgroupPath})"));
        var cases = new List<Case>();
        Case Open(JournalGroupSetup setup, int callers, int depth)
            => new(setup, callers, depth, JournalGroupEnvironments.Open(Path.Combine(directory, $"{setup}-{callers}-{depth}"), setup, branches, depth));
        try
        {
            foreach (int callers in callerCounts)
            {
                foreach (int depth in depths)
                    cases.Add(Open(JournalGroupSetup.Shared, callers, depth));
                cases.Add(Open(JournalGroupSetup.Separate, callers, depths[0]));
                cases.Add(Open(JournalGroupSetup.RootAlone, callers, depths[0]));
            }
            using var ceiling = new DeviceCeiling(Path.Combine(directory, "device"), branches + 1, cap is null ? null : cap.WriteOperations);
            foreach (var c in cases)
                c.RunRound(commits / 4, measured: false); // JIT tiering, first journal files, spares
            ceiling.RunRound(commits / 4, measured: false);
            for (int round = 0; round < rounds; round++)
            {
                for (int k = 0; k < cases.Count; k++)
                    cases[(round + k) % cases.Count].RunRound(commits, measured: true);
                ceiling.RunRound(commits, measured: true);
            }
            Report(cases, output);
            string underCap = cap is null
                ? ""
                : string.Create(CultureInfo.InvariantCulture, $"; under the cap one write cost {ceiling.ParallelOperationsPerWrite:F2} throttled operations (4 KiB) and {ceiling.VectoredOperationsPerWrite:F2} (vectored)");
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"# device ceiling, no engine: {branches + 1} threads each appending 4 KiB per O_DIRECT|O_DSYNC write to its own file " +
                $"{ceiling.ParallelMicros:F0} µs per write each; one vectored write of {branches + 1} × 4 KiB {ceiling.VectoredMicros:F0} µs: " +
                $"sharing can gain at most {ceiling.Ratio:F2}× over separate journals at 1 caller per environment on this disk{underCap}"));
            ReportAgainstCeiling(cases, ceiling.Ratio, output);
            return 0;
        }
        finally
        {
            foreach (var c in cases)
                c.Dispose();
            cap?.Dispose();
            try
            {
                Directory.Delete(directory, recursive: true);
            }
            catch (IOException)
            {
            }
        }
    }

    private static void Report(List<Case> cases, TextWriter output)
    {
        output.WriteLine("| case | callers/env | commits/s | vs separate | root p50 µs | root p99 µs | branch p50 µs | branch p99 µs | commits waiting | commits per journal write | write syscalls per journal write | in-flight limit | writes on the device | CPU µs per commit | CPU busy |");
        output.WriteLine("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        foreach (var c in cases)
        {
            var separate = cases.First(o => o.Callers == c.Callers && o.Setup == JournalGroupSetup.Separate);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {c.Name} | {c.Callers} | {c.Rate:F0} | {(c.Setup == JournalGroupSetup.RootAlone ? "-" : (c.Rate / separate.Rate).ToString("F2", CultureInfo.InvariantCulture))} | " +
                $"{c.RootLatency(0.50):F0} | {c.RootLatency(0.99):F0} | {c.BranchLatency(0.50)} | {c.BranchLatency(0.99)} | " +
                $"{c.CommitsWaiting} | {c.CommitsPerJournalWrite:F2} | {c.SyscallsPerJournalWrite:F2} | {c.InFlightLimit} | {c.WritesOnDevice} | {c.CpuMicrosPerCommit:F0} | {c.CpuUtilization:P0} |"));
        }
        foreach (int callers in cases.Select(c => c.Callers).Distinct())
        {
            var alone = cases.First(c => c.Callers == callers && c.Setup == JournalGroupSetup.RootAlone);
            foreach (var shared in cases.Where(c => c.Callers == callers && c.Setup == JournalGroupSetup.Shared))
                output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"# {callers} caller(s), {shared.Name}: root p99 with busy branches / root alone = {shared.RootLatency(0.99) / alone.RootLatency(0.99):F2}"));
        }
    }

    /// <summary>Each shared case against separate journals, and that gain against the most the device allows (the ceiling).</summary>
    private static void ReportAgainstCeiling(List<Case> cases, double ceiling, TextWriter output)
    {
        foreach (var shared in cases.Where(c => c.Setup == JournalGroupSetup.Shared))
        {
            var separate = cases.First(o => o.Callers == shared.Callers && o.Setup == JournalGroupSetup.Separate);
            double gain = shared.Rate / separate.Rate;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"# {shared.Callers} caller(s), {shared.Name}: shared / separate = {gain:F2}×, {gain / ceiling:F2} of the device ceiling ({ceiling:F2}×); " +
                $"{shared.CommitsPerJournalWrite:F2} commits per shared write with {shared.CommitsWaiting} waiting; {shared.CohortLine}"));
        }
    }

    private sealed class Case(JournalGroupSetup setup, int callers, int writesInFlight, JournalGroupEnvironments environments) : IDisposable
    {
        private readonly List<double> _rootMicros = [];
        private readonly List<double> _branchMicros = [];
        private long _commits;
        private long _journalWrites;
        private long _syscalls;
        private TimeSpan _elapsed;
        private TimeSpan _cpu;
        private long _nextKey;
        private long _groupWrites;
        private long _onDeviceAtStarts;
        private (long Released, long Returned, long Waits) _cohorts;

        public JournalGroupSetup Setup => setup;

        /// <summary>The setup, and for a shared one how many group writes may be in flight.</summary>
        public string Name => setup == JournalGroupSetup.Shared ? $"Shared ({writesInFlight} in flight)" : setup.ToString();

        public int Callers => callers;

        /// <summary>Commits waiting at any moment: every caller of every committing environment has one.</summary>
        public int CommitsWaiting => callers * (setup == JournalGroupSetup.RootAlone ? 1 : environments.Environments.Length);

        /// <summary>How many writes the group let onto the device at once at the end (learnt from it); "-" without a group.</summary>
        public string InFlightLimit => setup == JournalGroupSetup.Separate
            ? "-"
            : environments.Root.ForTestingPurposesOnly().Group?.WritesInFlightLimit.ToString(CultureInfo.InvariantCulture) ?? "-";

        /// <summary>
        /// With a group: the mean number of its writes on the device as each of them started (itself included), over
        /// the measured rounds; what the limit lets through, not what it allows. "-" without a group.
        /// </summary>
        public string WritesOnDevice => _groupWrites == 0
            ? "-"
            : (_onDeviceAtStarts / (double)_groupWrites).ToString("F2", CultureInfo.InvariantCulture);

        /// <summary>
        /// Of the members each group write released, how many had submitted again when the next write took its batch
        /// (the cohort effect: near zero when released members always miss the next write), and how many writes waited
        /// for them. <c>CAIRN_BENCH_GATHER=off</c> turns the wait off (the counters still count).
        /// </summary>
        public string CohortLine => _cohorts.Released == 0
            ? "no cohorts counted"
            : string.Create(CultureInfo.InvariantCulture,
                $"{_cohorts.Returned / (double)_cohorts.Released:F2} of the members a write released were back for the next one ({_cohorts.Released} released), " +
                $"{_cohorts.Waits / (double)Math.Max(1, _groupWrites):F2} of writes waited for them{(GatherOff ? " (gather off)" : "")}");

        private static bool GatherOff => Environment.GetEnvironmentVariable("CAIRN_BENCH_GATHER") == "off";

        public double Rate => _commits / Math.Max(_elapsed.TotalSeconds, 1e-9);

        public double CommitsPerJournalWrite => _commits / (double)Math.Max(1, _journalWrites);

        public double SyscallsPerJournalWrite => _syscalls / (double)Math.Max(1, _journalWrites);

        /// <summary>Process CPU time per commit (all threads): near the cores' capacity, commits are bound by CPU, not by the disk.</summary>
        public double CpuMicrosPerCommit => _cpu.TotalMicroseconds / Math.Max(1, _commits);

        public double CpuUtilization => _cpu.TotalSeconds / Math.Max(_elapsed.TotalSeconds * Environment.ProcessorCount, 1e-9);

        public double RootLatency(double quantile) => Quantile(_rootMicros, quantile);

        public string BranchLatency(double quantile)
            => _branchMicros.Count == 0 ? "-" : Quantile(_branchMicros, quantile).ToString("F0", CultureInfo.InvariantCulture);

        public void RunRound(int commitsPerCaller, bool measured)
        {
            var committing = setup == JournalGroupSetup.RootAlone ? environments.Environments[..1] : environments.Environments;
            var latencies = new List<double>[committing.Length * callers];
            var writers = Writers(committing);
            var marks = Marks(writers);
            var group = setup == JournalGroupSetup.Separate ? null : environments.Root.ForTestingPurposesOnly().Group;
            if (group is not null && GatherOff)
                group.ForTestingPurposesOnly().GatherOff = true;
            var cohortsBefore = group?.Cohorts ?? default;
            var sentBefore = GroupWritesSent();
            long syscallsBefore = PalFaultInjection.WriteCalls;
            var cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
            var started = Stopwatch.GetTimestamp();
            var threads = new Thread[latencies.Length];
            for (int t = 0; t < threads.Length; t++)
            {
                var environment = committing[t / callers];
                var list = latencies[t] = new List<double>(commitsPerCaller);
                long firstKey = Interlocked.Add(ref _nextKey, commitsPerCaller) - commitsPerCaller;
                threads[t] = new Thread(() => Commit(environment, firstKey, commitsPerCaller, list));
                threads[t].Start();
            }
            foreach (var thread in threads)
                thread.Join();
            var elapsed = Stopwatch.GetElapsedTime(started);
            if (!measured)
                return;
            _elapsed += elapsed;
            _cpu += Process.GetCurrentProcess().TotalProcessorTime - cpuBefore;
            _commits += (long)commitsPerCaller * threads.Length;
            _journalWrites += JournalWritesSince(writers, marks);
            _syscalls += PalFaultInjection.WriteCalls - syscallsBefore;
            var sentAfter = GroupWritesSent();
            _groupWrites += sentAfter.Writes - sentBefore.Writes;
            _onDeviceAtStarts += sentAfter.OnDeviceAtStarts - sentBefore.OnDeviceAtStarts;
            var cohortsAfter = group?.Cohorts ?? default;
            _cohorts = (_cohorts.Released + cohortsAfter.Released - cohortsBefore.Released, _cohorts.Returned + cohortsAfter.Returned - cohortsBefore.Returned,
                _cohorts.Waits + cohortsAfter.Waits - cohortsBefore.Waits);
            for (int t = 0; t < latencies.Length; t++)
                (t < callers ? _rootMicros : _branchMicros).AddRange(latencies[t]);
        }

        /// <summary>The root's group's writes so far (none for separate journals).</summary>
        private (long Writes, long OnDeviceAtStarts) GroupWritesSent()
            => setup == JournalGroupSetup.Separate ? (0, 0) : environments.Root.ForTestingPurposesOnly().Group?.WritesSent ?? (0, 0);

        /// <summary>
        /// The environments whose journal writes count: with a group, the root records each shared write once
        /// (each branch records its share too), so the root's records are the group's; separate environments each count their own.
        /// </summary>
        private StorageEnvironment[] Writers(StorageEnvironment[] committing)
            => setup == JournalGroupSetup.Separate ? committing : committing[..1];

        private static long[] Marks(StorageEnvironment[] writers) => [.. writers.Select(e => e.IoStats.TotalRecorded)];

        /// <summary>Journal writes recorded since <paramref name="marks"/> (the rings are big enough to hold a round).</summary>
        private static long JournalWritesSince(StorageEnvironment[] writers, long[] marks)
        {
            long writes = 0;
            for (int i = 0; i < writers.Length; i++)
            {
                foreach (var operation in writers[i].IoStats.Snapshot())
                    if (operation.Sequence >= marks[i] && operation.Kind == IoOperationKind.JournalWrite)
                        writes++;
            }
            return writes;
        }

        private static void Commit(StorageEnvironment environment, long firstKey, int count, List<double> latencies)
        {
            Span<byte> key = stackalloc byte[8];
            Span<byte> value = stackalloc byte[100];
            value.Fill(0x5a);
            for (long k = firstKey; k < firstKey + count; k++)
            {
                System.Buffers.Binary.BinaryPrimitives.WriteInt64BigEndian(key, k);
                long start = Stopwatch.GetTimestamp();
                using (var tx = environment.BeginWrite())
                {
                    tx.CreateTree("kv").Put(key, value);
                    tx.Commit();
                }
                latencies.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
            }
        }

        private static double Quantile(List<double> values, double quantile)
        {
            if (values.Count == 0)
                return double.NaN;
            var sorted = values.ToArray();
            Array.Sort(sorted);
            return sorted[Math.Min(sorted.Length - 1, (int)(quantile * sorted.Length))];
        }

        public void Dispose() => environments.Dispose();
    }

    /// <summary>The options, each followed by its value; an unknown one, or one that is not positive, fails before anything runs.</summary>
    private static (int Branches, int Rounds, int Commits, int[] Callers, int[] InFlight, int? IopsCap) Parse(IReadOnlyList<string> args)
    {
        int branches = 8, rounds = 6, commits = 200;
        int? iopsCap = null;
        int[] callers = [1, 8];
        int[] inFlight = [new StorageOptions(".").JournalGroupMaxInFlightWrites];
        for (int i = 0; i < args.Count; i += 2)
        {
            string value = i + 1 < args.Count ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            switch (args[i])
            {
                case "--branches": branches = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--rounds": rounds = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--commits": commits = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--callers": callers = ParseList(value); break;
                case "--in-flight": inFlight = ParseList(value); break;
                case "--iops-cap": iopsCap = int.Parse(value, CultureInfo.InvariantCulture); break;
                default: throw new ArgumentException($"unknown option {args[i]}; known: --branches N, --rounds N, --commits N, --callers N[,N...], --in-flight N[,N...], --iops-cap N");
            }
        }
        if (branches < 1 || rounds < 1 || commits < 4 || callers.Any(c => c < 1) || inFlight.Any(d => d < 1) || iopsCap < 1)
            throw new ArgumentException("--branches, --rounds, --callers, --in-flight and --iops-cap must be positive, --commits at least 4");
        return (branches, rounds, commits, callers, inFlight, iopsCap);
    }

    private static int[] ParseList(string value) => [.. value.Split(',').Select(v => int.Parse(v, CultureInfo.InvariantCulture))];
}
