using System.Buffers.Binary;

namespace Cairn.TestChild;

/// <summary>
/// <c>backup-until ENV KIND TARGET PAUSE</c>: opens ENV, starts two writers that commit until the process dies
/// (puts of 100 B to 20 KiB values and deletes of earlier keys; a few commits per progress report, so the copy
/// catches up with them), and backs ENV up into TARGET, a directory or, for
/// the stream kinds, a stream file. KIND is <c>plain-dir</c>, <c>plain-stream</c>, <c>compact-dir</c> or
/// <c>compact-stream</c>. At the progress report PAUSE names it prints "paused" and blocks until standard input
/// closes, the writers still committing: the leak tests kill it there. PAUSE is <c>first</c> (the first report) or
/// <c>complete:N</c> (the N-th report whose bytes done reach the total: the end of one copy phase; a compacting
/// backup has one for a directory, the compacted copy, and two for a stream, that copy then streamed). If the backup ends
/// without reaching PAUSE it prints "finished" instead.
/// </summary>
public static class BackupUntilCommand
{
    // Commits the writers may make per progress report: enough to keep them committing through the whole copy, few
    // enough that the copy (which takes the journals written meanwhile) always catches up with them.
    private const int CommitsPerReport = 4;

    public static int Run(string environment, string kind, string target, string pause)
    {
        using var env = StorageEnvironment.Open(new StorageOptions(environment)
        {
            MaxFlushDelay = TimeSpan.FromMilliseconds(5),
            SyncInterval = TimeSpan.FromMilliseconds(20),
        });
        using var allowance = new SemaphoreSlim(4 * CommitsPerReport);
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 2)
            .Select(writer => Task.Factory.StartNew(() => Write(env, writer, allowance, stop.Token), TaskCreationOptions.LongRunning)).ToArray();
        var options = new BackupOptions
        {
            Compact = kind.StartsWith("compact", StringComparison.Ordinal),
            Progress = new PausingProgress(pause, () => allowance.Release(CommitsPerReport)),
        };
        try
        {
            if (kind.EndsWith("-stream", StringComparison.Ordinal))
            {
                using var stream = File.Create(target);
                env.Backup(stream, options, CancellationToken.None);
            }
            else
            {
                env.Backup(target, options, CancellationToken.None);
            }
        }
        catch (Exception e)
        {
            Console.WriteLine($"failed: {e}");
            Console.Out.Flush();
            Environment.Exit(3); // the writers may be waiting for an allowance that never comes
        }
        stop.Cancel();
        Task.WaitAll(writers);
        Console.WriteLine("finished");
        return 0;
    }

    /// <summary>Commits until stopped, each commit waiting for an allowance with its transaction open.</summary>
    private static void Write(StorageEnvironment env, int writer, SemaphoreSlim allowance, CancellationToken stop)
    {
        var random = new Random(writer);
        Span<byte> key = stackalloc byte[8];
        try
        {
            for (long n = 0; !stop.IsCancellationRequested; n++)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree($"writer-{writer}");
                BinaryPrimitives.WriteInt64BigEndian(key, n);
                tree.Put(key, new byte[random.Next(100, 20 << 10)]);
                if (n >= 50)
                {
                    BinaryPrimitives.WriteInt64BigEndian(key, n - 50);
                    tree.Delete(key);
                }
                allowance.Wait(stop);
                tx.Commit();
            }
        }
        catch (OperationCanceledException)
        {
        }
    }

    private sealed class PausingProgress(string pause, Action onReport) : IProgress<BackupProgress>
    {
        private int _reports;
        private int _completes;

        public void Report(BackupProgress value)
        {
            onReport();
            _reports++;
            if (value.BytesDone >= value.BytesTotal)
                _completes++;
            bool here = pause == "first" ? _reports == 1 : pause == $"complete:{_completes}" && value.BytesDone >= value.BytesTotal;
            if (!here)
                return;
            Console.WriteLine("paused");
            Console.Out.Flush();
            Console.In.ReadToEnd();
        }
    }
}
