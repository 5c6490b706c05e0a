using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

public class ReadJournalEntriesTests
{
    [Fact]
    public void Entries_after_a_position_come_in_order_up_to_the_last_commit()
    {
        using var dir = new TestDirectory("ship-read");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        long start = env.LastCommittedTransactionId;
        ShippingFixtures.Commit(env, 0, 20);
        var all = env.ReadJournalEntries(start).ToList();
        Assert.Equal(Enumerable.Range(1, 20).Select(i => start + i), all.Select(e => e.TransactionId));
        Assert.All(all, e => Assert.Equal(env.EnvironmentId, e.EnvironmentId));
        Assert.All(all, e => Assert.Equal(0, e.Data.Length % 4096));

        var tail = env.ReadJournalEntries(start + 15).Select(e => e.TransactionId).ToList();
        Assert.Equal(Enumerable.Range(16, 5).Select(i => start + i), tail);
        Assert.Empty(env.ReadJournalEntries(env.LastCommittedTransactionId));
    }

    /// <summary>Reading on from where the last read stopped (the shipping loop) gives the next entries only.</summary>
    [Fact]
    public void Reading_on_from_the_last_entry_gives_only_newer_ones()
    {
        using var dir = new TestDirectory("ship-read-on");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { InitialJournalFileBytes = 64 << 10, MaxJournalFileBytes = 64 << 10 });
        long position = env.LastCommittedTransactionId;
        var seen = new List<long>();
        for (int round = 0; round < 10; round++)
        {
            ShippingFixtures.Commit(env, round * 10, 10, valueLength: 3000); // small journals: reads cross file switches
            foreach (var entry in env.ReadJournalEntries(position))
            {
                seen.Add(entry.TransactionId);
                position = entry.TransactionId;
            }
        }
        Assert.Equal(Enumerable.Range(1, seen.Count).Select(i => (long)i + seen[0] - 1), seen);
        Assert.Equal(env.LastCommittedTransactionId, position);
    }

    [Fact]
    public void Without_retention_entries_a_sync_covered_are_not_retained()
    {
        using var dir = new TestDirectory("ship-not-retained");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { InitialJournalFileBytes = 64 << 10, MaxJournalFileBytes = 64 << 10 });
        long start = env.LastCommittedTransactionId;
        ShippingFixtures.Commit(env, 0, 40, valueLength: 3000);
        env.Checkpoint();
        ShippingFixtures.Commit(env, 100, 1);
        var e = Assert.Throws<JournalEntriesNotRetainedException>(() => env.ReadJournalEntries(start).ToList());
        Assert.Equal(start, e.AfterTransactionId);
        Assert.True(e.FirstAvailableTransactionId > start + 1);
    }

    /// <summary>Lazily committed transactions are published before their write: the reader stops at the durable watermark.</summary>
    [Fact]
    public void Lazy_commits_are_handed_out_only_once_written()
    {
        using var dir = new TestDirectory("ship-read-lazy");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { LazyCommitMaxDelay = TimeSpan.FromHours(1) });
        long start = env.LastCommittedTransactionId;
        ShippingFixtures.Commit(env, 0, 3);
        long durable = env.LastCommittedTransactionId;
        for (int i = 10; i < 15; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("lazy").Put(Bytes.Key(i), Bytes.Value(i, 50));
            tx.Commit(CommitMode.Lazy);
        }
        Assert.Equal(durable, env.ReadJournalEntries(start).Last().TransactionId);

        env.FlushJournal();
        Assert.Equal(env.LastCommittedTransactionId, env.ReadJournalEntries(start).Last().TransactionId);
    }
}
