using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// A process killed mid-restore leaves no target that opens; a later restore into the same target works and deletes the
/// staging folder the kill left, but never the staging folder of a restore still running.
/// </summary>
public class RestoreCrashTests
{
    [Theory]
    [InlineData(0.0)]
    [InlineData(0.3)]
    [InlineData(0.9)]
    [InlineData(1.0)] // every byte read; killed before the last check and the rename
    public async Task A_restore_killed_midway_leaves_no_environment_behind(double fraction)
    {
        using var dir = new TestDirectory("restore-crash");
        var (backup, expected) = CreateBackup(dir);
        string target = Path.Combine(dir.Path, "target");
        long pauseAt = (long)(new FileInfo(backup).Length * fraction);

        using (var child = ChildProcess.Start("restore-until", backup, target, pauseAt.ToString(System.Globalization.CultureInfo.InvariantCulture)))
        {
            Assert.Equal("paused", await child.StandardOutput.ReadLineAsync());
            child.Kill(entireProcessTree: true);
            await child.WaitForExitAsync();
        }

        Assert.False(Directory.Exists(target), "the target appears only by the final rename");
        Assert.Single(Directory.GetDirectories(dir.Path, ".target.staging-*")); // what the kill left, under a name nobody opens
        using (var stream = File.OpenRead(backup))
            EnvironmentBackup.Restore(stream, target);
        BackupContent.AssertEqual(expected, BackupContent.ReadAll(target));
        Assert.Empty(Directory.GetFileSystemEntries(dir.Path, ".target.staging-*")); // the next restore deleted it, and its lock file
    }

    [Fact]
    public async Task A_restore_to_the_same_target_leaves_a_running_restores_staging_folder_alone()
    {
        using var dir = new TestDirectory("restore-live-staging");
        var (backup, expected) = CreateBackup(dir);
        string target = Path.Combine(dir.Path, "target");
        using var child = ChildProcess.Start("restore-until", backup, target, (new FileInfo(backup).Length / 2).ToString(System.Globalization.CultureInfo.InvariantCulture));
        try
        {
            Assert.Equal("paused", await child.StandardOutput.ReadLineAsync());
            string live = Assert.Single(Directory.GetDirectories(dir.Path, ".target.staging-*"));
            var liveFiles = Directory.GetFiles(live, "*", SearchOption.AllDirectories);
            Assert.NotEmpty(liveFiles);

            using (var stream = File.OpenRead(backup))
                EnvironmentBackup.Restore(stream, target);

            BackupContent.AssertEqual(expected, BackupContent.ReadAll(target));
            Assert.Equal(live, Assert.Single(Directory.GetDirectories(dir.Path, ".target.staging-*")));
            Assert.Equal(liveFiles, Directory.GetFiles(live, "*", SearchOption.AllDirectories));
        }
        finally
        {
            child.Kill(entireProcessTree: true);
            await child.WaitForExitAsync();
        }
    }

    private static (string Backup, SortedDictionary<string, Dictionary<string, byte[]>> Expected) CreateBackup(TestDirectory dir)
    {
        string backup = Path.Combine(dir.Path, "backup.cairnbk");
        SortedDictionary<string, Dictionary<string, byte[]>> expected;
        using (var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env"))))
        {
            BackupContent.Fill(env, "a", 0, 8000, 300);
            env.Checkpoint();
            BackupContent.Fill(env, "a", 0, 500, 40, seed: 3);
            using (var stream = File.Create(backup))
                env.Backup(stream);
            expected = BackupContent.ReadAll(env);
        }
        return (backup, expected);
    }
}
