using Cairn.Cli.Tests.Support;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

public class BackupCommandTests
{
    [Fact]
    public void A_directory_backup_opens_as_the_environment()
    {
        using var sample = new SampleEnvironment("cli-backup-dir");
        string copy = sample.Scratch("copy");

        var result = CliRun.Run("backup", sample.Path, copy);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.StartsWith($"ok: backed up {sample.Path} as of transaction {sample.LastCommittedTransactionId:N0} to {copy}", result.Output);
        var verify = CliRun.Run("verify", copy);
        Assert.True(verify.ExitCode == 0, verify.ToString());
        Assert.Contains("3 trees, 203 entries", verify.Output);
    }

    [Fact]
    public void A_stream_backup_restores_and_a_compacted_one_too()
    {
        using var sample = new SampleEnvironment("cli-backup-stream");
        string file = sample.Scratch("backup.cairnbk"), restored = sample.Scratch("restored");

        var backup = CliRun.Run("backup", sample.Path, file, "--stream", "--compact");
        Assert.True(backup.ExitCode == 0, backup.ToString());
        Assert.True(File.Exists(file));
        Assert.Empty(Directory.GetFiles(Path.GetDirectoryName(file)!, "backup.cairnbk.partial-*"));

        var restore = CliRun.Run("restore", file, restored);
        Assert.True(restore.ExitCode == 0, restore.ToString());
        Assert.StartsWith($"ok: restored {file} as of transaction {sample.LastCommittedTransactionId:N0} to {restored}", restore.Output);
        var verify = CliRun.Run("verify", restored);
        Assert.True(verify.ExitCode == 0, verify.ToString());
        Assert.Contains("3 trees, 203 entries", verify.Output);

        var again = CliRun.Run("backup", sample.Path, file, "--stream");
        Assert.True(again.ExitCode == 3, again.ToString());
        Assert.Contains("already exists", again.Error);
    }

    [Fact]
    public void A_stream_backup_deletes_the_partial_file_a_killed_backup_left_and_not_one_being_written()
    {
        using var sample = new SampleEnvironment("cli-backup-partial");
        string file = sample.Scratch("backup.cairnbk");
        string dead = $"{file}.partial-{Guid.NewGuid():N}", live = $"{file}.partial-{Guid.NewGuid():N}";
        File.WriteAllBytes(dead, new byte[4096]); // what a killed backup leaves: no process holds it
        using (var writing = new FileStream(live, FileMode.CreateNew, FileAccess.Write, FileShare.None))
        {
            var backup = CliRun.Run("backup", sample.Path, file, "--stream");

            Assert.True(backup.ExitCode == 0, backup.ToString());
            Assert.False(File.Exists(dead));
            Assert.True(File.Exists(live));
        }
        File.Delete(live);
    }

    [Fact]
    public void A_damaged_backup_is_refused_with_exit_code_1_the_file_and_the_offset()
    {
        using var sample = new SampleEnvironment("cli-restore-damaged");
        string file = sample.Scratch("backup.cairnbk"), restored = sample.Scratch("restored");
        Assert.Equal(0, CliRun.Run("backup", sample.Path, file, "--stream").ExitCode);
        long offset = new FileInfo(file).Length / 2;
        FileDamage.FlipBits(file, offset);

        var result = CliRun.Run("restore", file, restored);

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.Contains($"cairn restore: damaged: {file} at offset ", result.Error);
        Assert.Contains("does not match its checksum", result.Error);
        Assert.False(Directory.Exists(restored));
    }

    [Fact]
    public void Compact_copies_every_entry_into_a_new_directory()
    {
        using var sample = new SampleEnvironment("cli-compact");
        string copy = sample.Scratch("compacted");

        var result = CliRun.Run("compact", sample.Path, copy);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.StartsWith($"ok: compacted {sample.Path} as of transaction", result.Output);
        var verify = CliRun.Run("verify", copy);
        Assert.True(verify.ExitCode == 0, verify.ToString());
        Assert.Contains("3 trees, 203 entries", verify.Output);
    }

    [Fact]
    public void Restore_of_a_directory_backup_is_a_usage_error_and_compact_of_a_non_environment_an_open_failure()
    {
        using var sample = new SampleEnvironment("cli-restore-dir");
        var restore = CliRun.Run("restore", sample.Path, sample.Scratch("x"));
        Assert.True(restore.ExitCode == 2, restore.ToString());
        Assert.Contains("is a directory backup", restore.Error);

        string empty = sample.Scratch("empty");
        Directory.CreateDirectory(empty);
        var compact = CliRun.Run("compact", empty, sample.Scratch("y"));
        Assert.True(compact.ExitCode == 3, compact.ToString());
        Assert.False(File.Exists(Path.Combine(empty, StorageEnvironment.DataFileName)));
    }
}
