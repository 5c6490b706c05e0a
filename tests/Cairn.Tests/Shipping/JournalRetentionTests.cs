using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

public class JournalRetentionTests
{
    private static StorageOptions Retaining(string path, long bytes) => new(path)
    {
        InitialJournalFileBytes = 64 << 10,
        MaxJournalFileBytes = 64 << 10,
        JournalRetentionBytes = bytes,
    };

    [Fact]
    public void Retained_entries_outlive_the_sync_until_acknowledged()
    {
        using var dir = new TestDirectory("retain");
        using var env = StorageEnvironment.Open(Retaining(dir.Path, 64L << 20));
        long start = env.LastCommittedTransactionId;
        ShippingFixtures.Commit(env, 0, 40, valueLength: 3000);
        env.Checkpoint();
        Assert.Equal(40, env.ReadJournalEntries(start).Count());
        Assert.True(env.JournalBytesRetainedForShipping > 0);

        env.AcknowledgeShipped(start + 30);
        env.Checkpoint();
        Assert.Throws<JournalEntriesNotRetainedException>(() => env.ReadJournalEntries(start).ToList());
        // What was not acknowledged is still there.
        Assert.Equal(10, env.ReadJournalEntries(start + 30).Count());
    }

    /// <summary>Past the bound the oldest journals go anyway: writers go on, the consumer behind them is told to take a new backup.</summary>
    [Fact]
    public void Past_the_bound_the_oldest_journals_go_and_the_consumer_is_told()
    {
        using var dir = new TestDirectory("retain-bound");
        using var log = new CapturingLoggerFactory();
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path)
        {
            InitialJournalFileBytes = 64 << 10,
            MaxJournalFileBytes = 64 << 10,
            JournalRetentionBytes = 256 << 10,
            LoggerFactory = log,
        });
        long start = env.LastCommittedTransactionId;
        ShippingFixtures.Commit(env, 0, 200, valueLength: 3000); // about 1.6 MB of entries
        env.Checkpoint();
        var e = Assert.Throws<JournalEntriesNotRetainedException>(() => env.ReadJournalEntries(start).ToList());
        Assert.True(e.FirstAvailableTransactionId > start + 1);
        Assert.Contains("new full backup", e.Message);
        // From the oldest still there, everything to the end is.
        var rest = env.ReadJournalEntries(e.FirstAvailableTransactionId - 1).Select(x => x.TransactionId).ToList();
        Assert.Equal(env.LastCommittedTransactionId, rest[^1]);
        Assert.Equal(rest.Count, rest[^1] - rest[0] + 1);
        // Journals kept for the consumer stay within the bound.
        Assert.InRange(env.JournalBytesRetainedForShipping, 1, 256 << 10);
        ShippingFixtures.Commit(env, 1000, 5); // writers are not held up
        var dropped = log.WithEventId(1205).ToList(); // the policy is logged where it acts
        Assert.NotEmpty(dropped);
        Assert.All(dropped, d => Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Warning, d.Level));
    }

    /// <summary>Retained journals are older than the header's position: a reopen (clean or after a crash) never replays them and keeps them again.</summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Retention_survives_a_reopen_without_replaying_retained_journals(bool crash)
    {
        using var dir = new TestDirectory("retain-reopen");
        long start;
        Dictionary<string, string> before;
        using (var env = StorageEnvironment.Open(Retaining(dir.Path, 64L << 20)))
        {
            start = env.LastCommittedTransactionId;
            ShippingFixtures.Commit(env, 0, 40, valueLength: 3000);
            env.Checkpoint();
            ShippingFixtures.Commit(env, 100, 5, valueLength: 3000);
            before = new(ShippingFixtures.Dump(env));
            if (crash)
                env.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        using (var env = StorageEnvironment.Open(Retaining(dir.Path, 64L << 20)))
        {
            Assert.Equal(before, new Dictionary<string, string>(ShippingFixtures.Dump(env)));
            Assert.Equal(start + 45, env.LastCommittedTransactionId);
            Assert.Equal(45, env.ReadJournalEntries(start).Count());
            env.Verify();
            ShippingFixtures.Commit(env, 200, 3);
            env.Checkpoint();
            Assert.Equal(48, env.ReadJournalEntries(start).Count());
        }
    }

    [Fact]
    public void A_bound_of_zero_is_refused()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new StorageOptions("x") { JournalRetentionBytes = 0 }.Validate());
        Assert.Equal(nameof(StorageOptions.JournalRetentionBytes), e.ParamName);
    }
}
