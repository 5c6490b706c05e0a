using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// <see cref="StorageEnvironment.Checkpoint"/> while a backup runs flushes, syncs and records the synced transaction
/// in the header as it does otherwise, and releases every journal except those the backup still copies (from the
/// synced header it started from on); those go when the backup ends.
/// </summary>
public class CheckpointDuringBackupTests
{
    [Fact]
    public async Task Checkpoint_during_a_backup_syncs_and_keeps_only_the_journals_the_backup_needs()
    {
        using var dir = new TestDirectory("checkpoint-backup");
        string copy = dir.File("copy");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.File("env"))
        {
            MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1), InitialJournalFileBytes = 256 << 10, MaxJournalFileBytes = 1 << 20,
        });
        BackupContent.Fill(env, "a", 0, 3000, 1000);
        env.Checkpoint();
        // After the synced header the backup starts from: the copy has these only from the journals.
        BackupContent.Fill(env, "a", 0, 300, 1000, seed: 1);
        Assert.True(env.LastSyncedTransactionId < env.LastCommittedTransactionId);

        using var paused = new ManualResetEventSlim();
        using var resume = new ManualResetEventSlim();
        var progress = new InlineProgress(_ =>
        {
            paused.Set();
            resume.Wait();
        });
        var backup = Task.Factory.StartNew(() => env.Backup(copy, new BackupOptions { Progress = progress }, CancellationToken.None), TaskCreationOptions.LongRunning);
        paused.Wait();
        long committed, synced, flushed;
        try
        {
            BackupContent.Fill(env, "b", 0, 1500, 1000); // more than a journal's worth, written while the backup runs
            env.Checkpoint();
            committed = env.LastCommittedTransactionId;
            synced = env.LastSyncedTransactionId;
            flushed = env.GetInfo().LastFlushedTransactionId;
        }
        finally
        {
            resume.Set();
        }
        var result = await backup;
        Assert.Equal(committed, flushed);
        Assert.Equal(committed, synced); // the checkpoint synced although a backup ran

        // The journals from the backup's header on were kept for it: the copy opens to every transaction.
        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(copy));
        // The backup's end let the journals the checkpoint synced go, all but the one in service.
        var journals = env.GetInfo().Journals.Where(j => !j.IsRecyclable).Select(j => j.FileName).ToList();
        Assert.True(journals.Count <= 1, $"journals kept after the backup: {string.Join(", ", journals)}");
        Assert.False(env.HasFailed);
    }
}
