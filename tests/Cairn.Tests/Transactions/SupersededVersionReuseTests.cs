using System.Text;
using Cairn.Commit;
using Cairn.Journal;
using Cairn.Tests.Commit;
using Cairn.Tests.Support;
using Cairn.Transactions;
using Cairn.Trees;

namespace Cairn.Tests.Transactions;

/// <summary>
/// A page version a commit replaced goes back to scratch memory as soon as no state that has it is held (issue 29,
/// item 1): not when a lazy commit's write or the flusher lets the oldest epoch move. What may still hold one: a
/// reader's snapshot, and the state the durable watermark stops at when a journal write ends there (the flusher
/// flushes that state).
/// </summary>
public sealed class SupersededVersionReuseTests
{
    private const int PageSize = 8192;

    private static StorageOptions LazyOnly(string path) => new(path)
    {
        CommitMode = CommitMode.Lazy,
        // Nothing is written, flushed or synced but what the test asks for: the durable watermark stays put.
        LazyCommitMaxDelay = TimeSpan.FromHours(1),
        LazyCommitMaxBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        FlushThresholdBytes = 1L << 40,
        PrepareSpareJournals = false,
    };

    private static void Rewrite(StorageEnvironment env, int value)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Bytes.Key(1), Bytes.Value(value, 100));
        tx.Commit();
    }

    [Fact]
    public void Lazy_commits_rewriting_a_page_keep_no_version_in_between()
    {
        using var dir = new TestDirectory("superseded-lazy");
        using var env = StorageEnvironment.Open(LazyOnly(dir.Path));
        Rewrite(env, 0);
        env.FlushJournal(); // everything durable: the next lazy commit pins this state for the flusher
        for (int i = 1; i <= 10; i++)
            Rewrite(env, i);
        long afterTen = env.ScratchBytesInUse;
        for (int i = 11; i <= 300; i++)
            Rewrite(env, i);

        // Before: every version since the durable state stayed until the lazy entries' write (about 290 × 3 pages here).
        Assert.True(env.ScratchBytesInUse <= afterTen + 4 * PageSize,
            $"scratch in use grew from {afterTen:N0} to {env.ScratchBytesInUse:N0} bytes over 290 lazy commits of one page");
        using var read = env.BeginRead();
        Assert.Equal(Bytes.Value(300, 100), read.OpenTree("t").Get(Bytes.Key(1)));
    }

    [Fact]
    public void A_snapshot_keeps_reading_its_version_while_the_writer_rewrites_the_page()
    {
        using var dir = new TestDirectory("superseded-snapshot");
        using var env = StorageEnvironment.Open(LazyOnly(dir.Path));
        Rewrite(env, 0);
        env.FlushJournal();
        var held = new List<(ReadTransaction Snapshot, int Value)>();
        try
        {
            for (int i = 1; i <= 200; i++)
            {
                Rewrite(env, i);
                if (i % 40 == 7)
                    held.Add((env.BeginRead(), i));
                foreach (var (snapshot, value) in held)
                    Assert.Equal(Bytes.Value(value, 100), snapshot.OpenTree("t").Get(Bytes.Key(1)));
            }
            long holding = env.ScratchBytesInUse;
            foreach (var (snapshot, _) in held)
                snapshot.Dispose();
            held.Clear();
            env.FlushJournal(); // the lazy commits' durable state, pinned for the flusher, goes too
            Rewrite(env, 201);
            Rewrite(env, 202);
            Assert.True(env.ScratchBytesInUse < holding, "the versions the snapshots held went back once they ended");
        }
        finally
        {
            foreach (var (snapshot, _) in held)
                snapshot.Dispose();
        }
    }

    /// <summary>
    /// Transaction 2's entry ends a journal write and transaction 3 starts the next: the watermark stops at 2 once that
    /// write is done, and the flusher then flushes state 2. A version only state 2 has (the leaf transaction 2 wrote,
    /// replaced by 3) must survive 3 and 4, although no reader holds state 2 yet.
    /// </summary>
    [Fact]
    public void The_state_a_journal_write_ends_at_keeps_its_versions_for_the_flusher()
    {
        using var h = new CommitHarness("superseded-durable-stop");
        using var commit = new PreparedCommit();
        long first = h.States.Current.TransactionId + 1;
        for (int i = 1; i <= 4; i++)
        {
            var tx = h.BeginWrite();
            CommitHarness.Put(tx, "key", Encoding.UTF8.GetBytes($"value {i}"));
            h.Pipeline.Prepare(tx, commit);
            // Entries 1 and 3 open a journal write: 2 ends the first one.
            h.Pipeline.Publish(commit, new EntryLocation(JournalPosition.None, startsBatch: i is 1 or 3));
            commit.Reset();
            h.EndWrite();
        }
        h.BeginWrite(); // the writer's reclaim, as the next transaction would do it
        h.EndWrite();

        // The write that ended with transaction 2 is done: the watermark moves there, and the flusher takes that state.
        h.States.MarkDurable(first + 1);
        int flusherSlot = h.States.Readers.Reserve();
        var flushing = h.States.PinOldestReaderState(flusherSlot, flushedUpTo: first - 1);
        Assert.NotNull(flushing);
        Assert.Equal(first + 1, flushing.TransactionId);
        Assert.Equal("value 2", Read(h, flushing, "key"));
        h.States.Readers.MarkIdle(flusherSlot);
    }

    private static string? Read(CommitHarness h, EnvironmentState state, string key)
    {
        var reader = LowLevelTransaction.ForReading(h.DataFile, h.Scratch, state);
        var root = new BTree(reader, reader.RootTree);
        if (!TreeDirectory.TryRead(root, CommitHarness.TreeName, out var tree, "test"))
            return null;
        return new BTree(reader, tree).TryGet(Encoding.UTF8.GetBytes(key), out var value) ? Encoding.UTF8.GetString(value) : null;
    }
}
