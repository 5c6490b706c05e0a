using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

public class HotBackupTests
{
    [Fact]
    public void Directory_backup_opens_to_the_same_content_and_transaction()
    {
        using var dir = new TestDirectory("backup-dir");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        BackupContent.Fill(env, "a", 0, 3000, 200);
        env.Checkpoint();
        BackupContent.Fill(env, "b", 0, 2000, 50); // only in the journal
        var result = env.Backup(copy);

        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        Assert.True(result.Files >= 2, "the data file and the journal after the checkpoint");
        Assert.Empty(Directory.GetDirectories(dir.Path, ".copy.staging-*"));
        using var restored = StorageEnvironment.Open(new StorageOptions(copy));
        Assert.Equal(result.TransactionId, restored.LastCommittedTransactionId);
        restored.Verify();
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(restored));
    }

    [Fact]
    public void Stream_backup_restores_to_the_same_content_and_reports_progress()
    {
        using var dir = new TestDirectory("backup-stream");
        string source = Path.Combine(dir.Path, "env"), target = Path.Combine(dir.Path, "restored");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        BackupContent.Fill(env, "a", 0, 5000, 300);
        BackupContent.Fill(env, "a", 100, 50, 10, seed: 7);
        var reports = new List<BackupProgress>();
        using var stream = new MemoryStream();
        var result = env.Backup(stream, new BackupOptions { Progress = new InlineProgress(reports.Add) }, CancellationToken.None);

        Assert.Equal(result.Bytes, reports[^1].BytesDone);
        Assert.All(reports, r => Assert.True(r.BytesDone <= r.BytesTotal));
        stream.Position = 0;
        var restore = EnvironmentBackup.Restore(stream, target);
        Assert.Equal(result.TransactionId, restore.TransactionId);
        Assert.Equal(result.Files, restore.Files);
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(target));
    }

    /// <summary>
    /// With every commit synced into the data file before the backup, no journal entry lies after its start: the total
    /// first counted the journal files whole, and the copy still ends with a report of all of it done (the leak test's
    /// child once waited for that report and never got it).
    /// </summary>
    [Fact]
    public void A_backup_with_nothing_journaled_after_its_start_still_reports_itself_complete()
    {
        using var dir = new TestDirectory("backup-progress-end");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 3000, 1000);
        env.Checkpoint();
        var reports = new List<BackupProgress>();
        using var stream = new MemoryStream();
        var result = env.Backup(stream, new BackupOptions { Progress = new InlineProgress(reports.Add) }, CancellationToken.None);

        Assert.Equal(1, result.Files); // the data file alone: nothing after the synced header
        Assert.Equal(result.Bytes, reports[^1].BytesDone);
        Assert.Equal(reports[^1].BytesDone, reports[^1].BytesTotal);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_compacting_backup_reports_itself_complete_at_the_end(bool toStream)
    {
        using var dir = new TestDirectory("backup-compact-progress-end");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 6000, 500); // about 3 MiB: several 1 MiB writes
        BackupContent.Fill(env, "b", 0, 100, 20_000); // overflow runs
        env.Checkpoint();
        BackupContent.Fill(env, "a", 0, 100, 10); // only in the journal
        var reports = new List<BackupProgress>();
        var options = new BackupOptions { Compact = true, Progress = new InlineProgress(reports.Add) };
        using var stream = new MemoryStream();
        var result = toStream
            ? env.Backup(stream, options, CancellationToken.None)
            : env.Backup(Path.Combine(dir.Path, "copy"), options, CancellationToken.None);

        Assert.True(reports.Count >= 2, $"{reports.Count} reports");
        Assert.Equal(result.Bytes, reports[^1].BytesDone);
        Assert.Equal(reports[^1].BytesDone, reports[^1].BytesTotal);
    }

    /// <summary>
    /// The copy is fuzzy: while the data file is being read, transactions commit and the flusher writes them into
    /// pages the copy has already read and pages it has not. Recovery of the copy replays the journals from the
    /// synced header over that mix and must arrive at exactly the last transaction the backup reports.
    /// </summary>
    [Fact]
    public void Backup_is_consistent_when_the_flusher_writes_into_the_data_file_during_the_copy()
    {
        using var dir = new TestDirectory("backup-fuzzy");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source) { MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1) });
        BackupContent.Fill(env, "t", 0, 20_000, 400); // about 10 MiB: several 1 MiB chunks of copy
        env.Checkpoint();
        long syncedAtStart = env.LastSyncedTransactionId;
        int round = 0;
        var progress = new InlineProgress(_ =>
        {
            if (round >= 4)
                return;
            round++;
            // Every key gets a new value: pages behind the copy and ahead of it change, twice flushed, once only journaled.
            BackupContent.Fill(env, "t", 0, 20_000, 400, seed: round * 1000);
            if (round <= 3)
                env.ForTestingPurposesOnly().FlushWithoutSync();
            env.Checkpoint(); // flushes and syncs; the journals the copy needs stay
            Assert.Equal(env.LastCommittedTransactionId, env.LastSyncedTransactionId);
        });
        var result = env.Backup(copy, new BackupOptions { Progress = progress }, CancellationToken.None);

        Assert.Equal(4, round);
        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        Assert.True(env.IoStats.Snapshot().Any(o => o.Kind == Cairn.Diagnostics.IoOperationKind.DataFlush && o.FirstTransactionId > syncedAtStart),
            "the flusher wrote into the data file during the copy");
        using var restored = StorageEnvironment.Open(new StorageOptions(copy));
        Assert.Equal(result.TransactionId, restored.LastCommittedTransactionId);
        restored.Verify();
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(restored));
        env.Checkpoint();
        Assert.Equal(env.LastCommittedTransactionId, env.LastSyncedTransactionId); // the hold ended with the backup
    }

    [Fact]
    public void A_backup_refuses_a_destination_that_is_not_empty_and_leaves_it_alone()
    {
        using var dir = new TestDirectory("backup-not-empty");
        string copy = Path.Combine(dir.Path, "copy");
        Directory.CreateDirectory(copy);
        File.WriteAllText(Path.Combine(copy, "keep.txt"), "mine");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 10, 10);
        Assert.Throws<IOException>(() => env.Backup(copy));
        Assert.Equal(["keep.txt"], Directory.GetFileSystemEntries(copy).Select(Path.GetFileName));
    }

    [Fact]
    public void A_cancelled_backup_leaves_nothing_behind()
    {
        using var dir = new TestDirectory("backup-cancel");
        string copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 10_000, 300);
        using var cancel = new CancellationTokenSource();
        var progress = new InlineProgress(_ => cancel.Cancel());
        Assert.ThrowsAny<OperationCanceledException>(() => env.Backup(copy, new BackupOptions { Progress = progress }, cancel.Token));
        Assert.False(Directory.Exists(copy));
        Assert.Equal(["env"], Directory.GetFileSystemEntries(dir.Path).Select(Path.GetFileName));
        BackupContent.Fill(env, "a", 0, 10, 10); // the environment goes on, its syncs no longer held
        env.Checkpoint();
        Assert.Equal(env.LastCommittedTransactionId, env.LastSyncedTransactionId);
    }

    /// <summary>Closing the environment under a running backup would fail the copy: Dispose refuses, and works once it is done.</summary>
    [Fact]
    public async Task Dispose_refuses_while_a_backup_runs_and_closes_after_it()
    {
        using var dir = new TestDirectory("backup-dispose");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        var env = StorageEnvironment.Open(new StorageOptions(source));
        BackupContent.Fill(env, "a", 0, 2000, 200);
        using var inCopy = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        var progress = new InlineProgress(_ =>
        {
            inCopy.Set();
            release.Wait();
        });
        var backup = Task.Run(() => env.Backup(copy, new BackupOptions { Progress = progress }, CancellationToken.None));
        inCopy.Wait();
        try
        {
            var refused = Assert.Throws<BackupRunningException>(env.Dispose);
            Assert.Equal(1, refused.Backups);
            Assert.False(env.HasFailed);
            BackupContent.Fill(env, "b", 0, 10, 50); // still open for writes
        }
        finally
        {
            release.Set(); // a failed assertion must not leave the backup blocked
        }
        var result = await backup;
        env.Dispose();
        using var restored = StorageEnvironment.Open(new StorageOptions(copy));
        Assert.Equal(result.TransactionId, restored.LastCommittedTransactionId);
        restored.Verify();
    }
}
