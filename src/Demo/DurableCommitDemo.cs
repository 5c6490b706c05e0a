using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Diagnostics;
using Cairn.Pal;

namespace Cairn.Demo;

internal sealed record DurableCommitResult(int Commits, double CommitsPerSecond, double RawWritesPerSecond, double RatioToRaw,
    double JournalWriteP50Micros, double JournalWriteP99Micros, long JournalBytesPerCommit);

/// <summary>
/// Single-writer durable commits of one 100-byte put each, against the disk's raw rate of 4 KiB
/// O_DIRECT|O_DSYNC writes measured right after in the same run (the ceiling: a commit is one such write).
/// </summary>
internal static unsafe class DurableCommitDemo
{
    public static (DurableCommitResult Result, IoStats Stats) Run(string directory, int commits)
    {
        string path = Path.Combine(directory, "commits");
        if (Directory.Exists(path))
            Directory.Delete(path, recursive: true);
        var env = StorageEnvironment.Open(new StorageOptions(path));
        IoStats stats;
        double seconds;
        try
        {
            var key = new byte[16];
            var value = new byte[100];
            Random.Shared.NextBytes(value);
            var clock = Stopwatch.StartNew();
            for (int i = 0; i < commits; i++)
            {
                BitConverter.TryWriteBytes(key, i * 2654435761L);
                using var tx = env.BeginWrite();
                tx.CreateTree("kv").Put(key, value);
                tx.Commit();
            }
            seconds = clock.Elapsed.TotalSeconds;
            stats = env.IoStats;
        }
        finally
        {
            env.Dispose();
        }
        double raw = RawWritesPerSecond(directory, commits);
        var journal = stats.Summarize().JournalWrite;
        double rate = commits / seconds;
        return (new DurableCommitResult(commits, rate, raw, rate / raw, journal.P50Duration.TotalMicroseconds,
            journal.P99Duration.TotalMicroseconds, journal.Count > 0 ? journal.Bytes / journal.Count : 0), stats);
    }

    private static double RawWritesPerSecond(string directory, int writes)
    {
        string path = Path.Combine(directory, "raw-4k.probe");
        File.Delete(path);
        byte* buffer = (byte*)NativeMemory.AlignedAlloc(4096, 4096);
        try
        {
            new Span<byte>(buffer, 4096).Fill(0x5A);
            using var file = PalFile.OpenJournal(path, (long)writes * 4096);
            var clock = Stopwatch.StartNew();
            for (int i = 0; i < writes; i++)
            {
                var one = new PalBuffer(buffer, 4096);
                file.Write(new ReadOnlySpan<PalBuffer>(&one, 1), (long)i * 4096);
            }
            return writes / clock.Elapsed.TotalSeconds;
        }
        finally
        {
            NativeMemory.AlignedFree(buffer);
            File.Delete(path);
        }
    }
}
