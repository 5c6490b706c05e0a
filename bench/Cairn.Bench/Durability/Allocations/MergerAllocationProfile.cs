using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Durability.Allocations;

/// <summary>
/// <c>--merger-alloc-profile [--callers 1,16,64] [--seconds S]</c>: what a merged put allocates in steady state, by type.
/// For each caller count, an environment with default options takes asynchronous callers' puts (each caller awaits
/// <c>WriteAsync</c> with a static lambda and its own buffers, as the <c>cairn-merger-async</c> store's callers do);
/// after a warm-up, one window measures the whole process's allocated bytes (precise) per put, and a second window
/// with <see cref="AllocationTickListener"/> enabled names the types those bytes went to (the listener's own
/// dispatch allocates too: its types are listed as they come, mostly <c>EventWrittenEventArgs</c> and payload arrays).
/// Each caller's task is started once for the whole run, so no per-round task counts.
/// </summary>
internal static class MergerAllocationProfile
{
    private const string TreeName = "t";

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        int[] callerCounts = [1, 16, 64];
        double seconds = 10;
        for (int i = 0; i + 1 < args.Count; i += 2)
        {
            switch (args[i])
            {
                case "--callers":
                    callerCounts = args[i + 1].Split(',').Select(v => int.Parse(v, CultureInfo.InvariantCulture)).ToArray();
                    break;
                case "--seconds":
                    seconds = double.Parse(args[i + 1], CultureInfo.InvariantCulture);
                    break;
                default:
                    output.WriteLine($"unknown option {args[i]}; known: --callers N[,N...], --seconds S");
                    return 2;
            }
        }
        using var listener = new AllocationTickListener();
        foreach (int callers in callerCounts)
            Profile(callers, TimeSpan.FromSeconds(seconds), listener, output);
        return 0;
    }

    private static void Profile(int callerCount, TimeSpan window, AllocationTickListener listener, TextWriter output)
    {
        var directory = BenchScratch.Directory($"merger-alloc-{callerCount}");
        try
        {
            using var env = StorageEnvironment.Open(new StorageOptions(directory));
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree(TreeName);
                tx.Commit();
            }
            using var run = new CallerSet(env, callerCount);
            run.Start();
            Thread.Sleep(TimeSpan.FromSeconds(Math.Max(2, window.TotalSeconds / 2))); // warm-up: JIT tiers, pools, queues

            var (puts, transactions, bytes) = Window(env, run, window);
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{callerCount} callers: {puts:N0} puts in {transactions:N0} merged transactions ({puts / (double)Math.Max(1, transactions):F2} puts/write), " +
                $"{bytes / (double)puts:F1} B/put, {bytes / (double)Math.Max(1, transactions):F0} B/transaction (whole process, precise)"));

            listener.Start();
            var (tickPuts, tickTransactions, tickBytes) = Window(env, run, window);
            listener.Stop();
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  with the tick listener: {tickPuts:N0} puts, {tickTransactions:N0} transactions, {tickBytes / (double)tickPuts:F1} B/put; by type (sampled):"));
            foreach (var (type, sampled, ticks) in listener.Ticks())
            {
                output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"    {sampled / (double)tickPuts,8:F1} B/put {sampled / (double)Math.Max(1, tickTransactions),8:F0} B/transaction {ticks,6} ticks  {type}"));
            }
            run.Stop();
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static (long Puts, long Transactions, long Bytes) Window(StorageEnvironment env, CallerSet run, TimeSpan length)
    {
        long puts = run.Puts;
        long transactions = env.MergerStatistics.Snapshot().Transactions;
        long bytes = GC.GetTotalAllocatedBytes(precise: true);
        Thread.Sleep(length);
        bytes = GC.GetTotalAllocatedBytes(precise: true) - bytes;
        return (run.Puts - puts, env.MergerStatistics.Snapshot().Transactions - transactions, bytes);
    }

    /// <summary>The callers: each a task awaiting one put after another until stopped.</summary>
    private sealed class CallerSet(StorageEnvironment env, int count) : IDisposable
    {
        private readonly Task[] _tasks = new Task[count];
        private volatile bool _stopping;
        private long _puts;

        public long Puts => Interlocked.Read(ref _puts);

        public void Start()
        {
            for (int c = 0; c < count; c++)
            {
                var caller = new Caller(env, (ulong)c, (ulong)count);
                _tasks[c] = Task.Run(() => RunAsync(caller));
            }
        }

        private async Task RunAsync(Caller caller)
        {
            while (!_stopping)
            {
                await caller.PutAsync().ConfigureAwait(false);
                Interlocked.Increment(ref _puts);
            }
        }

        public void Stop()
        {
            _stopping = true;
            Task.WaitAll(_tasks);
        }

        public void Dispose()
        {
            if (!_stopping)
                Stop();
        }
    }

    /// <summary>One caller's key and value, passed to its operation as state.</summary>
    private sealed class Caller(StorageEnvironment env, ulong first, ulong step)
    {
        private readonly byte[] _key = new byte[DurableKeys.KeySize];
        private readonly byte[] _value = new byte[BenchValues.ValueSize];
        private ulong _next = first;

        public ValueTask PutAsync()
        {
            DurableKeys.Write(_next, _key);
            _next += step;
            BenchValues.Compose(_key, _value);
            return env.WriteAsync(this, static (tx, c) => tx.OpenTree(TreeName).Put(c._key, c._value));
        }
    }
}
