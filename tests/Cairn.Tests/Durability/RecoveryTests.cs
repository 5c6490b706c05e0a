using System.Text.RegularExpressions;
using Cairn.Journal.Files;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// Commits are durable when Commit returns: after a simulated process crash (files closed with nothing
/// flushed, synced or written to the header) every committed transaction comes back from the journals,
/// whatever the background flusher had or had not done.
/// </summary>
public class RecoveryTests
{
    private static StorageOptions Options(string path) => new(path)
    {
        // Nothing happens in the background unless a test asks for it.
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };

    private static void CommitValues(StorageEnvironment env, int first, int count, int valueLength = 100)
    {
        for (int i = first; i < first + count; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("values").Put(Bytes.Key(i), Bytes.Value(i, valueLength));
            tx.Commit();
        }
    }

    private static void AssertValues(StorageEnvironment env, int count, int valueLength = 100)
    {
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("values");
        Assert.Equal(count, tree.Count);
        for (int i = 0; i < count; i++)
            Assert.Equal(Bytes.Value(i, valueLength), tree.Get(Bytes.Key(i)));
    }

    [Fact]
    public void Commits_survive_a_crash_with_nothing_flushed()
    {
        using var dir = new TestDirectory("recovery-unflushed");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitValues(env, 0, 300);
        long last = env.LastCommittedTransactionId;
        Assert.Equal(0, env.LastSyncedTransactionId);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(last, reopened.LastCommittedTransactionId);
        AssertValues(reopened, 300);
        reopened.Verify();
    }

    [Fact]
    public void Commits_survive_a_crash_after_flushes_that_were_never_synced()
    {
        using var dir = new TestDirectory("recovery-flushed");
        var env = StorageEnvironment.Open(new StorageOptions(dir.Path)
        {
            FlushThresholdBytes = 64 << 10,
            MaxFlushDelay = TimeSpan.FromMilliseconds(1),
            SyncInterval = TimeSpan.FromHours(1),
        });
        CommitValues(env, 0, 1000);
        // Let the flusher write versions of many pages into the data file, unsynced, then rewrite them.
        Assert.True(SpinWait.SpinUntil(() => env.IoStats.Snapshot().Any(o => o.Kind == Cairn.Diagnostics.IoOperationKind.DataFlush), TimeSpan.FromSeconds(10)));
        CommitValues(env, 1000, 1000);
        Assert.Equal(0, env.LastSyncedTransactionId);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        AssertValues(reopened, 2000);
        reopened.Verify();
    }

    [Fact]
    public void A_checkpoint_deletes_covered_journals_and_recovery_replays_only_what_follows()
    {
        using var dir = new TestDirectory("recovery-checkpoint");
        var options = new StorageOptions(dir.Path)
        {
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            InitialJournalFileBytes = 64 << 10,
            MaxJournalFileBytes = 256 << 10,
        };
        var env = StorageEnvironment.Open(options);
        // 64 + 128 KiB and part of a 256 KiB file: fewer than the 512 KiB of retained journals at which the
        // background thread syncs on its own, so the journals are still there for the checkpoint to delete.
        CommitValues(env, 0, 60, valueLength: 700);
        int journalsBefore = JournalFiles(dir.Path).Length;
        Assert.True(journalsBefore > 2, $"expected several small journals, found {journalsBefore}");
        env.Checkpoint();
        long synced = env.LastSyncedTransactionId;
        Assert.Equal(env.LastCommittedTransactionId, synced);
        Assert.True(JournalFiles(dir.Path).Length <= 1, "every journal but the active one is covered by the sync");
        CommitValues(env, 60, 50, valueLength: 700);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        AssertValues(reopened, 110, valueLength: 700);
        Assert.Equal(synced + 50, reopened.LastCommittedTransactionId);
        reopened.Verify();
    }

    [Fact]
    public void A_clean_close_leaves_no_journal_to_replay()
    {
        using var dir = new TestDirectory("recovery-clean");
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
            CommitValues(env, 0, 100);
        Assert.Empty(JournalFiles(dir.Path));
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        AssertValues(reopened, 100);
        Assert.Equal(reopened.LastCommittedTransactionId, reopened.LastSyncedTransactionId);
    }

    [Fact]
    public void A_transaction_larger_than_the_journal_cap_gets_a_journal_of_its_own_size()
    {
        using var dir = new TestDirectory("recovery-oversize");
        var options = new StorageOptions(dir.Path)
        {
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            InitialJournalFileBytes = 64 << 10,
            MaxJournalFileBytes = 128 << 10,
        };
        var env = StorageEnvironment.Open(options);
        var big = Bytes.Value(7, 1 << 20);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("big").Put("blob"u8, big);
            tx.Commit();
        }
        var journals = JournalFiles(dir.Path);
        var oversized = journals.Select(p => new FileInfo(p).Length).Where(l => l > options.MaxJournalFileBytes).ToArray();
        Assert.Single(oversized);
        Assert.Equal(0, oversized[0] % 4096);
        Assert.True(oversized[0] < (1 << 20) + (64 << 10), $"the file is the entry's size, not a power of two: {oversized[0]}");
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        using var read = reopened.BeginRead();
        Assert.Equal(big, read.OpenTree("big").Get("blob"u8));
    }

    [Fact]
    public void Recovery_larger_than_its_memory_budget_spills_to_the_data_file()
    {
        using var dir = new TestDirectory("recovery-spill");
        var env = StorageEnvironment.Open(Options(dir.Path));
        // About 6 MiB of distinct pages, many rewritten.
        for (int batch = 0; batch < 30; batch++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("values");
            for (int i = 0; i < 400; i++)
                tree.Put(Bytes.Key(batch * 400 + i), Bytes.Value(batch * 400 + i, 1000));
            tx.Commit();
        }
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        // A 1 MiB recovery budget (half of MaxScratchBytes) forces several spills.
        var log = new CapturingLoggerFactory();
        using var reopened = StorageEnvironment.Open(new StorageOptions(dir.Path) { MaxScratchBytes = 2 << 20, FlushThresholdBytes = 64 << 10, LoggerFactory = log });
        var completed = Assert.Single(log.WithEventId(1102));
        Assert.Matches(@"\(([2-9]|\d\d+) spills to the data file\)", completed.Message);
        using (var tx = reopened.BeginRead())
        {
            var tree = tx.OpenTree("values");
            Assert.Equal(12000, tree.Count);
            for (int i = 0; i < 12000; i += 7)
                Assert.Equal(Bytes.Value(i, 1000), tree.Get(Bytes.Key(i)));
        }
        reopened.Verify();
    }

    [Fact]
    public void Recovery_reports_its_time_by_stage_within_its_whole_time()
    {
        using var dir = new TestDirectory("recovery-stages");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitValues(env, 0, 200);
        long last = env.LastCommittedTransactionId;
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        var log = new CapturingLoggerFactory();
        using var reopened = StorageEnvironment.Open(new StorageOptions(dir.Path) { LoggerFactory = log });
        Assert.Equal(last, reopened.LastCommittedTransactionId);
        var whole = Milliseconds(Assert.Single(log.WithEventId(1102)).Message, @"in ([\d.,]+) ms");
        var stages = Assert.Single(log.WithEventId(1106)).Message;
        // Each thread's stages are parts of the replay, timed inside it: together never more than the whole (each rounded to 0.1 ms).
        double reading = Sum("reading and validating entries", "checking their page records", "scanning past each journal's log end",
            "waiting for the applying thread", "waiting for the apply to end", "validating the rebuilt pages");
        Assert.True(reading > 0 && reading <= whole + 0.6, $"{stages} (whole: {whole} ms)");
        double applying = Sum("applying entries", "waiting for entries");
        Assert.True(applying > 0 && applying <= whole + 0.2, $"{stages} (whole: {whole} ms)");

        double Sum(params string[] names)
        {
            double sum = 0;
            foreach (var stage in names)
            {
                double ms = Milliseconds(stages, Regex.Escape(stage) + @" ([\d.,]+) ms");
                Assert.True(ms >= 0, stages);
                sum += ms;
            }
            return sum;
        }

        static double Milliseconds(string message, string pattern)
        {
            var match = Regex.Match(message, pattern);
            Assert.True(match.Success, $"'{pattern}' not in: {message}");
            return double.Parse(match.Groups[1].Value.Replace(",", ""), System.Globalization.CultureInfo.InvariantCulture);
        }
    }

    [Fact]
    public void Crashes_during_recovery_and_right_after_it_lose_nothing()
    {
        using var dir = new TestDirectory("recovery-repeat");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitValues(env, 0, 200);
        env.ForTestingPurposesOnly().SimulateProcessCrash();
        for (int round = 0; round < 3; round++)
        {
            var again = StorageEnvironment.Open(Options(dir.Path));
            CommitValues(again, 200 + round * 10, 10);
            again.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        AssertValues(reopened, 230);
        reopened.Verify();
    }

    private static string[] JournalFiles(string directory)
        => Directory.GetFiles(Path.Combine(directory, JournalFileName.DirectoryName), "*" + JournalFileName.Extension);
}
