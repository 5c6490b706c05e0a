using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>A process killed mid-restore leaves no target that opens; a later restore into the same target works.</summary>
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
        string backup = Path.Combine(dir.Path, "backup.cairnbk"), target = Path.Combine(dir.Path, "target");
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
            StorageEnvironment.Restore(stream, target);
        BackupContent.AssertEqual(expected, BackupContent.ReadAll(target));
    }
}
