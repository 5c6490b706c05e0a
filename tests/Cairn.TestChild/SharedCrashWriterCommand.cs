using System.Globalization;

namespace Cairn.TestChild;

/// <summary>
/// <c>shared-crash-writer DIR SEED --env-writers W0,W1,… --env-callers C0,C1,… [settings…]</c>: opens
/// DIR/root as the root of a journal group and DIR/b1, DIR/b2, … as its branches
/// (<see cref="StorageEnvironment.OpenBranch"/>), then commits <see cref="CrashWorkload"/> transactions into
/// all of them at once: environment k (0 is the root) from Wk threads through <c>BeginWrite</c>/<c>Commit</c>
/// and Ck callers through <c>WriteAsync</c>, each with its own workload
/// (<see cref="SharedCrashWriterSettings.Workload"/>). Runs until killed (the crash tests' SIGKILL) or asked
/// to stop.
/// </summary>
/// <remarks>
/// Output, one line each, flushed at once: <c>opening</c> before the root is opened, <c>start k L0</c> for
/// every environment (the last transaction found) before any commit, <c>ack k i</c> once the commit holding
/// transaction i of environment k returned, and <c>stopped</c> after a clean close (branches first). Each
/// transaction numbers itself inside its write transaction (the last one it finds, plus one), so callers of
/// one environment interleave freely and acknowledge in any order. A caller that fails prints the error to
/// standard error and ends the process with exit code 3, so no failure hides behind the other callers.
/// </remarks>
internal static class SharedCrashWriterCommand
{
    public const string Usage = "shared-crash-writer DIRECTORY SEED --env-writers W0,W1,… --env-callers C0,C1,… [crash-writer settings]";
    public const int CallerFailedExitCode = 3;

    public static int Run(IReadOnlyList<string> arguments)
    {
        if (arguments.Count < 2)
        {
            Console.Error.WriteLine($"usage: Cairn.TestChild {Usage}");
            return 2;
        }
        string directory = arguments[0];
        long seed = long.Parse(arguments[1], CultureInfo.InvariantCulture);
        var settings = SharedCrashWriterSettings.Parse(arguments.Skip(2).ToList());
        var stop = StopRequest.WatchStandardInput();

        Say("opening");
        var environments = new StorageEnvironment[settings.Environments];
        environments[0] = StorageEnvironment.Open(settings.Storage.ToStorageOptions(SharedCrashWriterSettings.EnvironmentDirectory(directory, 0)));
        for (int k = 1; k < environments.Length; k++)
            environments[k] = environments[0].OpenBranch(settings.Storage.ToStorageOptions(SharedCrashWriterSettings.EnvironmentDirectory(directory, k)));
        for (int k = 0; k < environments.Length; k++)
        {
            using var read = environments[k].BeginRead();
            Say($"start {k} {CrashWorkload.ReadLast(read)}");
        }

        var callers = new List<Task>();
        for (int k = 0; k < environments.Length; k++)
        {
            var env = environments[k];
            var workload = SharedCrashWriterSettings.Workload(seed, k);
            int index = k;
            for (int w = 0; w < settings.Writers[k]; w++)
                callers.Add(Task.Factory.StartNew(() => Guard(index, () => Commit(env, index, workload, stop)), TaskCreationOptions.LongRunning));
            for (int c = 0; c < settings.Callers[k]; c++)
                callers.Add(Task.Run(() => Guard(index, () => MergeAsync(env, index, workload, stop).AsTask().GetAwaiter().GetResult())));
        }
        Task.WaitAll(callers);

        for (int k = environments.Length - 1; k >= 0; k--)
            environments[k].Dispose();
        Say("stopped");
        return 0;
    }

    /// <summary>A <c>BeginWrite</c> caller: one workload transaction per commit.</summary>
    private static void Commit(StorageEnvironment env, int index, CrashWorkload workload, StopRequest stop)
    {
        while (!stop.IsRequested)
        {
            long i;
            using (var tx = env.BeginWrite())
            {
                i = workload.ApplyNext(tx);
                tx.Commit();
            }
            // The acknowledgement: once this line is out, the parent may count transaction i of environment index as durable.
            Say($"ack {index} {i}");
        }
    }

    /// <summary>A merger caller: each operation applies the next workload transaction (numbered inside the merged transaction).</summary>
    private static async ValueTask MergeAsync(StorageEnvironment env, int index, CrashWorkload workload, StopRequest stop)
    {
        while (!stop.IsRequested)
        {
            long i = await env.WriteAsync(workload, static (tx, w) => w.ApplyNext(tx));
            Say($"ack {index} {i}");
        }
    }

    private static void Guard(int index, Action caller)
    {
        try
        {
            caller();
        }
        catch (Exception e)
        {
            Console.Error.WriteLine($"a caller of environment {index} failed: {e}");
            Console.Error.Flush();
            System.Environment.Exit(CallerFailedExitCode);
        }
    }

    private static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }
}
