using System.Globalization;

namespace Cairn.TestChild;

/// <summary>
/// <c>crash-writer DIR SEED [--limit N] [settings…]</c>: commits <see cref="CrashWorkload"/> transactions
/// L0+1, L0+2, … on the environment in DIR and prints <c>ack i</c> after each commit returns, until it is
/// killed (the crash tests' SIGKILL), asked to stop, or has committed N.
/// </summary>
/// <remarks>
/// Output, one line each, flushed at once: <c>opening</c> before the environment is opened (so the parent
/// can aim a kill at recovery), <c>start L0</c> with the last transaction found, <c>ack i</c> per commit,
/// and <c>stopped L</c> after a clean close. A <c>stop</c> line or the end of standard input stops it
/// cleanly; the end of input also means a dead parent, so an orphaned writer does not run forever.
/// </remarks>
internal static class CrashWriterCommand
{
    public const string Usage = "crash-writer DIRECTORY SEED [--limit N] [--flush-threshold BYTES] [--max-flush-delay-ms MS] " +
        "[--sync-interval-ms MS] [--max-scratch BYTES] [--initial-journal BYTES] [--max-journal BYTES] [--callers N] [--large-values 0|1]";

    public static int Run(IReadOnlyList<string> arguments)
    {
        if (arguments.Count < 2)
        {
            Console.Error.WriteLine($"usage: Cairn.TestChild {Usage}");
            return 2;
        }
        string directory = arguments[0];
        long? limit = null;
        var settingArguments = new List<string>();
        for (int a = 2; a < arguments.Count; a++)
        {
            if (arguments[a] == "--limit" && a + 1 < arguments.Count)
                limit = long.Parse(arguments[++a], CultureInfo.InvariantCulture);
            else
                settingArguments.Add(arguments[a]);
        }
        var settings = CrashWriterSettings.Parse(settingArguments);
        var workload = settings.Workload(long.Parse(arguments[1], CultureInfo.InvariantCulture));
        var options = settings.ToStorageOptions(directory);

        var stop = StopRequest.WatchStandardInput();
        Say("opening");
        long last;
        using (var env = StorageEnvironment.Open(options))
        {
            using (var read = env.BeginRead())
                last = CrashWorkload.ReadLast(read);
            Say($"start {last}");
            long end = limit is { } n ? last + n : long.MaxValue;
            if (settings.Callers is { } callers)
                last = RunMerged(env, workload, callers, end, stop);
            while (settings.Callers is null && !stop.IsRequested && last < end)
            {
                long i = last + 1;
                using (var tx = env.BeginWrite())
                {
                    workload.Apply(tx, i);
                    tx.Commit();
                }
                last = i;
                // The acknowledgement: once this line is out, the parent may count transaction i as durable.
                Say($"ack {i}");
            }
        }
        Say($"stopped {last}");
        return 0;
    }

    /// <summary>
    /// The merger mode: each caller loops on <c>WriteAsync</c>, whose operation applies the next workload
    /// transaction (its number read inside the merged transaction, so operations run in any interleaving
    /// and a re-run still numbers them right), and acknowledges the number once its task completes.
    /// </summary>
    private static long RunMerged(StorageEnvironment env, CrashWorkload workload, int callers, long end, StopRequest stop)
    {
        var tasks = Enumerable.Range(0, callers).Select(_ => Task.Run(async () =>
        {
            while (!stop.IsRequested)
            {
                long i = await env.WriteAsync(workload, static (tx, w) => w.ApplyNext(tx));
                Say($"ack {i}");
                if (i >= end)
                    return;
            }
        })).ToArray();
        Task.WaitAll(tasks);
        using var read = env.BeginRead();
        return CrashWorkload.ReadLast(read);
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
