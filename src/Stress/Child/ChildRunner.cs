using Cairn.Stress.Protocol;
using Cairn.Stress.Workload;

namespace Cairn.Stress.Child;

/// <summary>
/// One child run: opens the root (and its branches), says what each holds, runs writers, merger callers, readers
/// (and the sampler) in all of them at once until killed or asked to stop, then closes them cleanly (branches
/// first) and says <c>stopped</c>.
/// </summary>
internal static class ChildRunner
{
    public static int Run(ChildSettings settings, TextWriter standardOutput, TextReader standardInput, TextWriter standardError)
    {
        var output = new ChildOutput(standardOutput);
        var stop = StopRequest.Watch(standardInput);
        var logger = settings.KillAt is { } point ? new KillPointLogger(point, settings.KillOccurrence, output) : null;

        output.Say(ChildLines.Opening);
        var environments = new StorageEnvironment[settings.Environments];
        environments[0] = StorageEnvironment.Open(settings.Storage.ToStorageOptions(settings.EnvironmentDirectory(0), logger));
        for (int k = 1; k < environments.Length; k++)
            environments[k] = environments[0].OpenBranch(settings.Storage.ToStorageOptions(settings.EnvironmentDirectory(k), logger));
        var workloads = new StressWorkload[environments.Length];
        for (int k = 0; k < environments.Length; k++)
        {
            workloads[k] = new StressWorkload(EnvironmentLayout.WorkloadSeed(settings.Seed, k), settings.Shape);
            using var read = environments[k].BeginRead();
            output.Say(ChildLines.Start(k, StressWorkload.ReadLast(read)));
        }

        var failure = new FailureExit(standardError);
        var work = new List<Task>();
        var watchers = new List<Task>();
        for (int k = 0; k < environments.Length; k++)
        {
            var (env, workload, index) = (environments[k], workloads[k], k);
            for (int w = 0; w < settings.Writers[k]; w++)
                work.Add(failure.Guard(index, "a writer", () => WorkLoops.Commit(env, index, workload, stop, output, settings.Storage.CommitsLazily)));
            for (int c = 0; c < settings.Callers[k]; c++)
                work.Add(failure.GuardAsync(index, "a merger caller", () => WorkLoops.MergeAsync(env, index, workload, stop, output)));
            for (int r = 0; r < settings.Readers; r++)
                watchers.Add(failure.Guard(index, "a reader", () => WorkLoops.Read(env, index, workload, stop, output)));
        }
        if (settings.SampleMilliseconds > 0)
            watchers.Add(failure.Guard(0, "the sampler",
                () => ResourceSampler.Run(environments, TimeSpan.FromMilliseconds(settings.SampleMilliseconds), stop, output)));
        Task.WaitAll([.. work, .. watchers]);

        for (int k = environments.Length - 1; k >= 0; k--)
            environments[k].Dispose();
        output.Say(ChildLines.Stopped);
        return 0;
    }

    /// <summary>
    /// A loop that throws ends the whole process at once (exit code <see cref="StressChild.FailedExitCode"/>, the
    /// error on standard error), so no failure hides behind the other loops still running.
    /// </summary>
    private sealed class FailureExit(TextWriter standardError)
    {
        /// <summary>A loop on a thread of its own (it blocks: commits, reads, sleeps).</summary>
        public Task Guard(int index, string what, Action loop)
            => Task.Factory.StartNew(() =>
            {
                try
                {
                    loop();
                }
                catch (Exception e)
                {
                    Exit(index, what, e);
                }
            }, TaskCreationOptions.LongRunning);

        /// <summary>An asynchronous loop (many merger callers must not hold a pool thread each).</summary>
        public Task GuardAsync(int index, string what, Func<Task> loop)
            => Task.Run(async () =>
            {
                try
                {
                    await loop();
                }
                catch (Exception e)
                {
                    Exit(index, what, e);
                }
            });

        private void Exit(int index, string what, Exception e)
        {
            standardError.WriteLine($"{what} of environment {index} failed: {e}");
            standardError.Flush();
            Environment.Exit(StressChild.FailedExitCode);
        }
    }
}
