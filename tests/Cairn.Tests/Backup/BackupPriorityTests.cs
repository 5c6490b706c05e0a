using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// A backup's copy yields the CPU to the writers (issue 27 item 2): it runs on a thread of its own at nice 19 (a
/// copy out of the page cache takes a whole core otherwise), and the caller's thread, which cannot be given its
/// priority back once lowered, keeps its own.
/// </summary>
public sealed class BackupPriorityTests
{
    [Fact]
    public void The_copy_runs_at_nice_19_on_a_thread_of_its_own_and_the_callers_thread_keeps_its_priority()
    {
        using var dir = new TestDirectory("backup-priority");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 4000, 500);
        var (callerThread, callerNice, seen, progress) = WatchCopyThread();

        foreach (var copy in new Func<BackupResult>[]
        {
            () => env.Backup(Path.Combine(dir.Path, "copy"), new BackupOptions { Progress = progress }, CancellationToken.None),
            () => env.Backup(Stream.Null, new BackupOptions { Progress = progress }, CancellationToken.None),
        })
        {
            seen.Clear();
            copy();
            Assert.NotEmpty(seen);
            Assert.All(seen, s => Assert.NotEqual(callerThread, s.Thread));
            Assert.All(seen, s => Assert.Equal(19, s.Nice));
            Assert.Equal(callerNice, ThreadNice());
        }
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(Path.Combine(dir.Path, "copy")));
    }

    [Fact]
    public void A_copy_asked_not_to_yield_runs_on_a_thread_of_its_own_at_the_callers_priority()
    {
        using var dir = new TestDirectory("backup-priority-caller");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 4000, 500);
        var (callerThread, callerNice, seen, progress) = WatchCopyThread();

        using (var stream = new MemoryStream())
        {
            env.Backup(stream, new BackupOptions { Progress = progress, LowPriority = false }, CancellationToken.None);
            stream.Position = 0;
            EnvironmentBackup.Restore(stream, Path.Combine(dir.Path, "restored"));
        }

        Assert.NotEmpty(seen);
        Assert.All(seen, s => Assert.NotEqual(callerThread, s.Thread));
        Assert.All(seen, s => Assert.Equal(callerNice, s.Nice));
        Assert.Equal(callerNice, ThreadNice());
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(Path.Combine(dir.Path, "restored")));
    }

    /// <summary>The caller's thread and nice value, and a progress that records the thread and nice value of each report.</summary>
    private static (int Thread, int Nice, List<(int Thread, int Nice)> Seen, InlineProgress Progress) WatchCopyThread()
    {
        var seen = new List<(int Thread, int Nice)>();
        var progress = new InlineProgress(_ => seen.Add((System.Environment.CurrentManagedThreadId, ThreadNice())));
        return (System.Environment.CurrentManagedThreadId, ThreadNice(), seen, progress);
    }

    /// <summary>The calling thread's nice value: field 19 of /proc/thread-self/stat (the fields after the command's closing parenthesis start at 3).</summary>
    private static int ThreadNice()
    {
        string stat = File.ReadAllText("/proc/thread-self/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return int.Parse(fields[19 - 3], System.Globalization.CultureInfo.InvariantCulture);
    }
}
