using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// A backup (plain or compacting, to a directory or a stream) killed at any point with writers running leaves nothing
/// behind once the next backup has run: every temporary folder it made is found and deleted then. A running
/// backup's temporary folders are never deleted by another operation on the same target or environment.
/// </summary>
public class BackupLeakTests
{
    public static TheoryData<string, string> KillPoints => new()
    {
        { "plain-dir", "first" },
        { "plain-dir", "complete:1" }, // every byte copied, killed before the rename
        { "plain-stream", "first" },
        { "plain-stream", "complete:1" },
        { "compact-dir", "first" }, // walking the snapshot's pages into the staged compacted copy
        { "compact-dir", "complete:1" }, // the compacted copy complete, not yet renamed into the destination
        { "compact-stream", "first" },
        { "compact-stream", "complete:1" }, // the compacted copy complete in its work folder
        { "compact-stream", "complete:2" }, // the compacted copy streamed
    };

    [Theory]
    [MemberData(nameof(KillPoints))]
    public async Task A_backup_killed_with_writers_running_leaves_nothing_once_the_next_backup_ran(string kind, string pause)
    {
        using var dir = new TestDirectory("backup-kill");
        var places = Places.Create(dir, kind);
        using (var env = StorageEnvironment.Open(new StorageOptions(places.Environment)))
            BackupContent.Fill(env, "seed", 0, 3000, 1000);

        using (var child = ChildProcess.Start("backup-until", places.Environment, kind, places.Target, pause))
        {
            string? line = await child.StandardOutput.ReadLineAsync();
            child.Kill(entireProcessTree: true);
            await child.WaitForExitAsync();
            if (line != "paused")
                Assert.Fail($"the child said '{line}' {await child.StandardOutput.ReadToEndAsync()} {await child.StandardError.ReadToEndAsync()}");
        }
        if (kind != "plain-stream")
            Assert.NotEmpty(places.Temporary()); // the kill came mid-backup: its temporary folders are there

        SortedDictionary<string, Dictionary<string, byte[]>> expected;
        using (var env = StorageEnvironment.Open(KilledProcess.Reopening(new StorageOptions(places.Environment))))
        {
            expected = BackupContent.ReadAll(env);
            places.Backup(env, kind);
        }

        Assert.Empty(places.Temporary());
        Assert.Equal(["env"], Names(places.EnvironmentParent));
        Assert.Equal([Path.GetFileName(places.Target)], Names(places.TargetParent));
        BackupContent.AssertEqual(expected, places.ReadBackup(dir));
    }

    [Theory]
    [InlineData("plain-dir", "first")]
    [InlineData("compact-dir", "first")]
    [InlineData("compact-dir", "complete:1")]
    [InlineData("compact-stream", "first")]
    [InlineData("compact-stream", "complete:2")]
    public async Task Another_operation_on_the_same_target_or_environment_leaves_a_running_backups_folders_alone(string kind, string pause)
    {
        using var dir = new TestDirectory("backup-live");
        var places = Places.Create(dir, kind);
        using var env = StorageEnvironment.Open(new StorageOptions(places.Environment));
        BackupContent.Fill(env, "seed", 0, 3000, 1000);
        var expected = BackupContent.ReadAll(env);
        using var paused = new ManualResetEventSlim();
        using var resume = new ManualResetEventSlim();
        int reports = 0, completes = 0;
        var progress = new InlineProgress(p =>
        {
            reports++;
            if (p.BytesDone >= p.BytesTotal)
                completes++;
            if (pause == "first" ? reports == 1 : p.BytesDone >= p.BytesTotal && pause == $"complete:{completes}")
            {
                paused.Set();
                resume.Wait();
            }
        });
        var running = Task.Factory.StartNew(() => places.Backup(env, kind, progress), TaskCreationOptions.LongRunning);
        try
        {
            // Either the backup pauses where asked or it ends without ever getting there (a pause point that no longer exists).
            WaitHandle.WaitAny([paused.WaitHandle, ((IAsyncResult)running).AsyncWaitHandle]);
            if (!paused.IsSet)
                Assert.Fail($"the backup ended without reaching the pause '{pause}'");
            var live = places.Temporary().ToList();
            var liveDataFiles = DataFiles(live);
            Assert.NotEmpty(live);

            // Both sweep: a restore into the same target (refused, as its stream is not a backup) and a backup of the environment.
            if (places.TargetIsDirectory)
                Assert.Throws<StorageFormatException>(() => EnvironmentBackup.Restore(new MemoryStream(new byte[4096]), places.Target));
            env.Backup(new MemoryStream(), new BackupOptions(), CancellationToken.None);
            env.Backup(new MemoryStream(), new BackupOptions { Compact = true }, CancellationToken.None);

            Assert.Equal(live, places.Temporary());
            Assert.Equal(liveDataFiles, DataFiles(live)); // (the open copies' spare journals may come and go)
        }
        finally
        {
            resume.Set();
            await running;
        }
        Assert.Empty(places.Temporary());
        BackupContent.AssertEqual(expected, places.ReadBackup(dir));
    }

    /// <summary>The data files under the folders <paramref name="entries"/>: every copy a backup keeps there.</summary>
    private static List<string> DataFiles(IEnumerable<string> entries)
        => entries.Where(Directory.Exists).SelectMany(e => Directory.GetFiles(e, StorageEnvironment.DataFileName, SearchOption.AllDirectories))
            .Order(StringComparer.Ordinal).ToList();

    private static List<string> Names(string folder)
        => Directory.GetFileSystemEntries(folder).Select(e => Path.GetFileName(e)).Order(StringComparer.Ordinal).ToList();

    /// <summary>The environment in a folder of its own, the target in another: the two places a backup may leave temporary files.</summary>
    private sealed record Places(string Environment, string EnvironmentParent, string Target, string TargetParent, bool TargetIsDirectory)
    {
        public static Places Create(TestDirectory dir, string kind)
        {
            string environmentParent = dir.File("environments");
            string targetParent = dir.File("targets");
            Directory.CreateDirectory(environmentParent);
            Directory.CreateDirectory(targetParent);
            bool directory = kind.EndsWith("-dir", StringComparison.Ordinal);
            return new Places(Path.Combine(environmentParent, "env"), environmentParent,
                Path.Combine(targetParent, directory ? "copy" : "backup.cairnbk"), targetParent, directory);
        }

        /// <summary>Hidden entries beside the environment or the target: what only a backup's temporary work makes.</summary>
        public IEnumerable<string> Temporary()
            => Directory.GetFileSystemEntries(EnvironmentParent).Concat(Directory.GetFileSystemEntries(TargetParent))
                .Where(e => Path.GetFileName(e).StartsWith('.')).Order(StringComparer.Ordinal).ToList();

        public BackupResult Backup(StorageEnvironment env, string kind, IProgress<BackupProgress>? progress = null)
        {
            var options = new BackupOptions { Compact = kind.StartsWith("compact", StringComparison.Ordinal), Progress = progress };
            if (TargetIsDirectory)
                return env.Backup(Target, options, CancellationToken.None);
            using var stream = File.Create(Target);
            return env.Backup(stream, options, CancellationToken.None);
        }

        public SortedDictionary<string, Dictionary<string, byte[]>> ReadBackup(TestDirectory dir)
        {
            if (TargetIsDirectory)
                return BackupContent.ReadAll(Target);
            string restored = dir.File("restored");
            using (var stream = File.OpenRead(Target))
                EnvironmentBackup.Restore(stream, restored);
            return BackupContent.ReadAll(restored);
        }
    }
}
