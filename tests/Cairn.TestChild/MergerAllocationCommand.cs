namespace Cairn.TestChild;

/// <summary>
/// <c>merger-allocations DIR</c>: how many bytes the whole process allocates while merged operations run,
/// measured in a process of its own so nothing else allocates meanwhile. Every operation overwrites one of
/// a few keys in one leaf, so each transaction changes the same pages whatever it holds. Prints one line
/// per measured phase, <c>phase transactions operations bytes</c>:
/// <list type="bullet">
/// <item><c>single-N</c>: one caller awaiting N operations one after another (one per transaction);</item>
/// <item><c>merged-N</c>: 32 callers, each awaiting N operations one after another (many per transaction).</item>
/// </list>
/// Differences between two phases of one kind cancel what a phase costs once (starting tasks), leaving the
/// cost per transaction and per operation for the test to solve. The four phases run <see cref="Repetitions"/>
/// times, in order, each printing its line.
/// </summary>
public static class MergerAllocationCommand
{
    public const int MergedCallers = 32;
    public const int Repetitions = 3;
    private const string TreeName = "a";

    public static int Run(string directory)
    {
        var options = new StorageOptions(directory)
        {
            // Nothing in the background during the phases: no flush, no sync, no journal switch.
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            InitialJournalFileBytes = 64L << 20,
        };
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree(TreeName);
            tx.Commit();
        }
        var callers = new Caller[MergedCallers];
        for (int i = 0; i < callers.Length; i++)
            callers[i] = new Caller(env, (byte)(i % 8));

        // Warm-up: JIT, the operation pool, the thread pool's threads and queues.
        Single(callers[0], 300);
        Merged(callers, 30);
        Single(callers[0], 300);
        Merged(callers, 30);

        // Three repetitions: a one-off allocation (a pool or queue growing once) shows in one of them, a cost per
        // operation in all of them.
        for (int repetition = 0; repetition < Repetitions; repetition++)
        {
            Measure(env, "single-200", () => Single(callers[0], 200));
            Measure(env, "single-800", () => Single(callers[0], 800));
            Measure(env, "merged-20", () => Merged(callers, 20));
            Measure(env, "merged-100", () => Merged(callers, 100));
        }
        return 0;
    }

    private static void Single(Caller caller, int operations) => caller.RunAsync(operations).GetAwaiter().GetResult();

    private static void Merged(Caller[] callers, int operationsEach)
    {
        var tasks = new Task[callers.Length];
        for (int i = 0; i < callers.Length; i++)
        {
            var caller = callers[i];
            tasks[i] = Task.Run(() => caller.RunAsync(operationsEach));
        }
        Task.WaitAll(tasks);
    }

    private static void Measure(StorageEnvironment env, string phase, Action run)
    {
        var before = env.MergerStatistics.Snapshot();
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        run();
        allocated = GC.GetTotalAllocatedBytes(precise: true) - allocated;
        var after = env.MergerStatistics.Snapshot();
        Console.WriteLine($"{phase} {after.Transactions - before.Transactions} {after.Operations - before.Operations} {allocated}");
    }

    /// <summary>One caller: its key and value live here, passed to each operation as state.</summary>
    private sealed class Caller(StorageEnvironment env, byte keyByte)
    {
        private readonly byte[] _key = [0x6b, keyByte];
        private readonly byte[] _value = new byte[100];

        public async Task RunAsync(int operations)
        {
            for (int i = 0; i < operations; i++)
            {
                _value[0] = (byte)i;
                await env.WriteAsync(this, static (tx, c) => tx.OpenTree(TreeName).Put(c._key, c._value));
            }
        }
    }
}
