using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

public class CompactionTests
{
    private static void Churn(StorageEnvironment env)
    {
        BackupContent.Fill(env, "kept", 0, 30_000, 200);
        BackupContent.Fill(env, "dropped", 0, 10_000, 300);
        using var tx = env.BeginWrite();
        var kept = tx.OpenTree("kept");
        for (int i = 0; i < 30_000; i++)
        {
            if (i % 4 != 0)
                kept.Delete(Bytes.Key(i));
            else if (i % 8 == 0)
                kept.Put(Bytes.Key(i), Bytes.Value(i, 20_000)); // overflow runs
        }
        tx.DeleteTree("dropped");
        tx.CreateTree("empty");
        tx.Commit();
    }

    [Fact]
    public void A_compacting_backup_of_a_churned_environment_is_smaller_and_equal_in_content()
    {
        using var dir = new TestDirectory("compact-backup");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        Churn(env);
        env.Checkpoint();

        var result = env.Backup(copy, new BackupOptions { Compact = true }, CancellationToken.None);

        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        long sourceSize = new FileInfo(Path.Combine(source, StorageEnvironment.DataFileName)).Length;
        long copySize = new FileInfo(Path.Combine(copy, StorageEnvironment.DataFileName)).Length;
        Assert.True(copySize < sourceSize, $"compacted {copySize} bytes, source {sourceSize}");
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(copy));
        Assert.Equal(["copy", "env"], Directory.GetFileSystemEntries(dir.Path).Select(p => Path.GetFileName(p)!).Order());
    }

    [Fact]
    public void Compacting_a_closed_environment_and_streaming_a_compacted_backup_give_the_same_content()
    {
        using var dir = new TestDirectory("compact-closed");
        string source = Path.Combine(dir.Path, "env");
        SortedDictionary<string, Dictionary<string, byte[]>> expected;
        using (var env = StorageEnvironment.Open(new StorageOptions(source)))
        {
            Churn(env);
            expected = BackupContent.ReadAll(env);
        }
        var compacted = EnvironmentBackup.Compact(source, Path.Combine(dir.Path, "compacted"));
        Assert.True(compacted.Bytes < new FileInfo(Path.Combine(source, StorageEnvironment.DataFileName)).Length);
        BackupContent.AssertEqual(expected, BackupContent.ReadAll(Path.Combine(dir.Path, "compacted")));

        using var stream = new MemoryStream();
        using (var env = StorageEnvironment.Open(new StorageOptions(source)))
            env.Backup(stream, new BackupOptions { Compact = true }, CancellationToken.None);
        stream.Position = 0;
        EnvironmentBackup.Restore(stream, Path.Combine(dir.Path, "restored"));
        BackupContent.AssertEqual(expected, BackupContent.ReadAll(Path.Combine(dir.Path, "restored")));
    }
}
