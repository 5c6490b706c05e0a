using Cairn.Commit;
using Cairn.Errors;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Journal.Sharing;
using Cairn.Tests.Support;
using Cairn.Transactions;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Tests.Commit;

/// <summary>
/// The <see cref="TransactionCommitter"/> on its own, over the components an environment wires it to: it chooses a lazy,
/// durable or group commit as documented (docs/design.md, "Lazy commits and group commit"), which the journal calls it
/// makes show, and an environment writes through a journal group only once it belongs to one.
/// </summary>
public sealed class TransactionCommitterTests
{
    [Theory]
    [InlineData(true, false, false, nameof(CommitPath.Lazy))]
    [InlineData(true, true, false, nameof(CommitPath.Lazy))]
    [InlineData(true, false, true, nameof(CommitPath.Lazy))]
    [InlineData(false, false, false, nameof(CommitPath.Durable))]
    [InlineData(false, true, false, nameof(CommitPath.Group))]
    [InlineData(false, false, true, nameof(CommitPath.Group))]
    [InlineData(false, true, true, nameof(CommitPath.Group))]
    public void The_policy_is_lazy_when_asked_else_durable_alone_or_grouped_when_a_writer_waits_or_a_write_is_under_way(bool lazy,
        bool othersWaiting, bool writeUnderWay, string expected)
        => Assert.Equal(Enum.Parse<CommitPath>(expected), TransactionCommitter.Choose(lazy, othersWaiting, writeUnderWay));

    [Fact]
    public void A_durable_commit_with_nobody_waiting_writes_its_entry_alone_before_it_returns()
    {
        using var fixture = new CommitterFixture("committer-durable");
        long id = fixture.CommitOne("a", lazy: false);

        Assert.Equal([id], fixture.Journal.WrittenAlone);
        Assert.Empty(fixture.Journal.Batches);
        Assert.Equal(id, fixture.Harness.States.DurableUpTo);
        Assert.False(fixture.Committer.UserWriterOpen);
        Assert.True(fixture.Committer.Writer.TryAcquire(TimeSpan.Zero)); // the write lock went with the commit
        fixture.Committer.Writer.Release();
    }

    [Fact]
    public void A_lazy_commit_is_published_and_queued_without_a_write_until_the_queue_is_written()
    {
        using var fixture = new CommitterFixture("committer-lazy");
        long durable = fixture.CommitOne("a", lazy: false);
        long lazy = fixture.CommitOne("b", lazy: true);

        Assert.Equal(lazy, fixture.Harness.States.Current.TransactionId);
        Assert.Equal(durable, fixture.Harness.States.DurableUpTo);
        Assert.Equal([durable], fixture.Journal.WrittenAlone);
        Assert.Empty(fixture.Journal.Batches);

        fixture.Committer.WriteQueued();
        Assert.Equal([(lazy, 1)], fixture.Journal.Batches);
        Assert.Equal(lazy, fixture.Harness.States.DurableUpTo);
    }

    [Fact]
    public void A_durable_commit_while_another_writer_waits_hands_over_the_lock_and_returns_once_a_batch_carried_it()
    {
        using var fixture = new CommitterFixture("committer-group");
        var writer = fixture.Committer.Writer;
        var low = fixture.BeginWrite("a");
        using var acquired = new ManualResetEventSlim();
        var waiter = new Thread(() =>
        {
            writer.Acquire();
            acquired.Set();
        });
        waiter.Start();
        // The waiter is queued on the lock from the moment the count shows it, however long it takes to get there.
        SpinWait.SpinUntil(() => writer.OthersWaiting);

        long id = fixture.Committer.Commit(low, lazy: false);

        // Not written alone under the lock: queued, the lock handed on, then written as a batch before Commit returned.
        Assert.Empty(fixture.Journal.WrittenAlone);
        Assert.Contains(fixture.Journal.Batches, b => b.First <= id && id < b.First + b.Count);
        Assert.True(fixture.Harness.States.DurableUpTo >= id);
        acquired.Wait();
        waiter.Join();
        writer.Release();
    }

    [Fact]
    public void A_durable_commit_made_while_queued_entries_are_being_written_lets_the_lock_go_and_rides_the_next_write()
    {
        using var fixture = new CommitterFixture("committer-under-way");
        var writer = fixture.Committer.Writer;
        long lazy = fixture.CommitOne("a", lazy: true);
        long id = 0;
        Thread queueWriter, committer;
        bool lockWentEarly;
        // Disposing the hold lets the held write go on, whatever happens inside.
        using (var hold = fixture.Journal.HoldNextBatch())
        {
            queueWriter = new Thread(fixture.Committer.WriteQueued);
            queueWriter.Start();
            hold.Entered.Wait(); // the lazy entry's write is on its way, and stays there
            var low = fixture.BeginWrite("b");
            committer = new Thread(() => id = fixture.Committer.Commit(low, lazy: false));
            committer.Start();
            // Nobody waits for the lock (a polling TryAcquire never queues). Group-committed, the commit lets the lock go
            // while the held write is still on its way; written in a row, it would hold it until that write ended.
            lockWentEarly = SpinWait.SpinUntil(() => writer.TryAcquire(TimeSpan.Zero), TimeSpan.FromMinutes(2));
            if (lockWentEarly)
                writer.Release();
        }
        queueWriter.Join();
        committer.Join();

        Assert.True(lockWentEarly, "the durable commit held the write lock while another write was under way");
        Assert.Empty(fixture.Journal.WrittenAlone);
        Assert.Equal([(lazy, 1), (id, 1)], fixture.Journal.Batches);
        Assert.True(fixture.Harness.States.DurableUpTo >= id);
    }

    [Fact]
    public void When_a_group_write_fails_its_committer_and_every_one_waiting_behind_it_throw_the_environments_failure()
    {
        const int Behind = 3;
        using var fixture = new CommitterFixture("committer-group-failure");
        var writer = fixture.Committer.Writer;
        var outcomes = new Exception?[Behind + 1];
        var threads = new Thread[Behind + 1];
        long published;
        using (var hold = fixture.Journal.HoldNextBatch())
        {
            hold.Failure = new IOException("injected: the device failed the write");
            var first = fixture.BeginWrite("first");
            // A durable commit with a writer waiting is group-committed, and leads the write that is held.
            threads[0] = CommitOn(first, 0);
            var lockWaiter = new Thread(() => writer.Acquire());
            lockWaiter.Start();
            SpinWait.SpinUntil(() => writer.OthersWaiting);
            threads[0].Start();
            lockWaiter.Join();
            hold.Entered.Wait();
            writer.Release();
            // These commit while the held write is under way: each is group-committed and waits behind it.
            for (int i = 1; i <= Behind; i++)
            {
                writer.Acquire();
                var low = fixture.Committer.StartUserWrite();
                CommitHarness.Put(low, $"behind{i}", [(byte)i]);
                threads[i] = CommitOn(low, i);
                threads[i].Start();
                writer.Acquire(); // the commit let the lock go before waiting
                writer.Release();
            }
            published = fixture.Harness.States.Current.TransactionId;
        }
        foreach (var thread in threads)
            thread.Join();

        Assert.All(outcomes, e => Assert.IsType<EnvironmentFailedException>(e));
        Assert.True(fixture.Harness.States.DurableUpTo < published - Behind);
        Assert.Empty(fixture.Journal.WrittenAlone);

        Thread CommitOn(LowLevelTransaction low, int index) => new(() =>
        {
            try
            {
                fixture.Committer.Commit(low, lazy: false);
            }
            catch (Exception e)
            {
                outcomes[index] = e;
            }
        });
    }

    [Fact]
    public void Many_threads_committing_at_once_each_return_only_once_their_transaction_and_every_earlier_one_is_durable()
    {
        const int Threads = 12, CommitsEach = 40;
        using var fixture = new CommitterFixture("committer-many");
        var writer = fixture.Committer.Writer;
        var acknowledged = new List<(long Id, long DurableAtReturn)>[Threads];
        var failures = new Exception?[Threads];
        var threads = new Thread[Threads];
        for (int t = 0; t < Threads; t++)
        {
            int thread = t;
            acknowledged[t] = [];
            threads[t] = new Thread(() =>
            {
                try
                {
                    for (int i = 0; i < CommitsEach; i++)
                    {
                        writer.Acquire();
                        var low = fixture.Committer.StartUserWrite();
                        CommitHarness.Put(low, $"k{thread}-{i}", [(byte)i]);
                        long id = fixture.Committer.Commit(low, lazy: false);
                        acknowledged[thread].Add((id, fixture.Harness.States.DurableUpTo));
                    }
                }
                catch (Exception e)
                {
                    failures[thread] = e;
                }
            });
        }
        foreach (var thread in threads)
            thread.Start();
        foreach (var thread in threads)
            thread.Join();

        Assert.All(failures, Assert.Null);
        var all = acknowledged.SelectMany(a => a).ToArray();
        Assert.Equal(Threads * CommitsEach, all.Select(a => a.Id).Distinct().Count());
        // Acknowledged means durable, and the watermark covers every transaction before it.
        Assert.All(all, a => Assert.True(a.DurableAtReturn >= a.Id, $"transaction {a.Id} returned with only {a.DurableAtReturn} durable"));
        // Every entry reached the journal once, in commit order: alone or in batches of consecutive transactions.
        var written = fixture.Journal.Batches.SelectMany(b => Enumerable.Range(0, b.Count).Select(k => b.First + k))
            .Concat(fixture.Journal.WrittenAlone).Order().ToArray();
        Assert.Equal(all.Select(a => a.Id).Order(), written);
        var onDisk = fixture.Harness.JournalFiles().Order(StringComparer.Ordinal)
            .SelectMany(file => new JournalReadBack(file).Entries.Select(e => e.Header.TransactionId));
        Assert.Equal(written, onDisk);
    }

    [Fact]
    public void Entries_go_to_the_new_journal_once_the_committer_writes_through_a_group_member_including_those_queued_before()
    {
        using var fixture = new CommitterFixture("committer-switch");
        long lazy = fixture.CommitOne("a", lazy: true);
        var member = new RecordingJournal(fixture.Harness.Journal);

        fixture.Committer.WriteThrough(member);
        long durable = fixture.CommitOne("b", lazy: false);

        Assert.Same(member, fixture.Committer.Journal);
        Assert.Empty(fixture.Journal.WrittenAlone);
        Assert.Empty(fixture.Journal.Batches);
        Assert.Equal([(lazy, 2)], member.Batches); // the queued entry and the durable one behind it, in one write
        Assert.Equal(durable, fixture.Harness.States.DurableUpTo);
    }

    [Fact]
    public void A_standalone_environment_writes_its_own_journal_and_joins_its_group_on_the_first_branch()
    {
        using var rootDir = new TestDirectory("committer-standalone-root");
        using var branchDir = new TestDirectory("committer-standalone-branch");
        using var root = StorageEnvironment.Open(new StorageOptions(rootDir.Path) { PrepareSpareJournals = false });
        Assert.Same(root.ForTestingPurposesOnly().Journal, root.ForTestingPurposesOnly().CommitJournal);
        using (var tx = root.BeginWrite())
        {
            tx.CreateTree("t").Put(Bytes.Key(1), Bytes.Value(1, 10));
            tx.Commit();
        }
        Assert.Same(root.ForTestingPurposesOnly().Journal, root.ForTestingPurposesOnly().CommitJournal);

        using var branch = root.OpenBranch(new StorageOptions(branchDir.Path) { PrepareSpareJournals = false });
        Assert.True(root.ForTestingPurposesOnly().CommitJournal is JournalGroupMember { IsRoot: true });
        Assert.True(branch.ForTestingPurposesOnly().CommitJournal is JournalGroupMember { IsRoot: false, Sharing: true });
    }

    /// <summary>A committer over a <see cref="CommitHarness"/>'s components, its journal calls recorded.</summary>
    private sealed class CommitterFixture : IDisposable
    {
        public CommitterFixture(string name)
        {
            Harness = new CommitHarness(name);
            Journal = new RecordingJournal(Harness.Journal);
            var logger = NullLogger.Instance;
            var budget = new ScratchBudget(Harness.Scratch, long.MaxValue, TimeSpan.FromSeconds(30), Harness.Failure, logger);
            // No timed write of the lazy queue: a test writes it when it means to.
            Committer = new TransactionCommitter(Harness.States, Harness.DataFile, Harness.Scratch, Harness.FreeSpace, budget,
                Harness.Failure, Journal, Harness.EnvironmentId, logger, () => { }, JournalWriterOptions.Default,
                (long.MaxValue, TimeSpan.FromHours(1)));
        }

        public CommitHarness Harness { get; }

        public RecordingJournal Journal { get; }

        public TransactionCommitter Committer { get; }

        /// <summary>As <c>BeginWrite</c>: the write lock, then a transaction that puts <paramref name="key"/>.</summary>
        public LowLevelTransaction BeginWrite(string key)
        {
            Assert.True(Committer.Writer.TryAcquire(TimeSpan.Zero));
            var low = Committer.StartUserWrite();
            CommitHarness.Put(low, key, [1, 2, 3]);
            return low;
        }

        public long CommitOne(string key, bool lazy) => Committer.Commit(BeginWrite(key), lazy);

        public void Dispose()
        {
            Committer.Dispose();
            Harness.Dispose();
        }
    }
}
