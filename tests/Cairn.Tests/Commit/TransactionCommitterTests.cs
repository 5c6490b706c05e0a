using Cairn.Commit;
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
    [InlineData(true, false, nameof(CommitPath.Lazy))]
    [InlineData(true, true, nameof(CommitPath.Lazy))]
    [InlineData(false, false, nameof(CommitPath.Durable))]
    [InlineData(false, true, nameof(CommitPath.Group))]
    public void The_policy_is_lazy_when_asked_else_durable_alone_or_grouped_when_a_writer_waits(bool lazy, bool othersWaiting, string expected)
        => Assert.Equal(Enum.Parse<CommitPath>(expected), TransactionCommitter.Choose(lazy, othersWaiting));

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
