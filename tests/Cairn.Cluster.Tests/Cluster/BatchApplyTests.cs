using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;
using Cairn.Tests.Support;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>A batch entry under DotNext's own log, applied by the Cairn state machine: one transaction, one outcome per command.</summary>
public sealed class BatchApplyTests : IDisposable
{
    private const string Tree = "t";
    private readonly TestDirectory directory = new("cluster-batch");

    public void Dispose() => directory.Dispose();

    [Fact]
    public async Task A_batch_is_applied_in_one_transaction_each_command_with_its_own_outcome()
    {
        using var environment = Open(directory.File("data"));
        await using var log = new WriteAheadLog(new WriteAheadLog.Options { Location = directory.File("raft") }, new CairnStateMachine(environment));
        await log.InitializeAsync();
        var (a, b, c, d, e) = (Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid());
        // Index 1: a single-command entry, the kind written before batching.
        await StateMachineTests.AppendCommitAndApply(log, new(CommandCodec.Encode(Put(a, 1, "a", 1))));

        ClusterCommand[] batch =
        [
            Put(a, 1, "a", 9), // applied at index 1: a duplicate across entries
            Put(b, 1, "b", 2),
            Put(b, 1, "b", 8), // the same id again in this entry: a duplicate inside it
            Put(c, 7, "c", 3), // no session for c and not its first write: expired
            new(new OperationId(d, 1), "Xcluster.applied", [ClusterOperation.Put("d"u8.ToArray(), [4])]), // refused by the checks
            Put(e, 1, "e", 5),
        ];
        var waiter = new ApplyWaiter(batch.Select(command => command.Id).ToArray());
        var transactionsBefore = environment.LastCommittedTransactionId;
        await AppendCommitAndApply(log, BatchCodecTests.WithReservedTree(BatchCodecTests.Encode(batch)), waiter);

        Assert.Equal(transactionsBefore + 1, environment.LastCommittedTransactionId);
        Assert.Equal(
            [
                new ApplyOutcome(ApplyStatus.Duplicate, 1), new ApplyOutcome(ApplyStatus.Applied, 2), new ApplyOutcome(ApplyStatus.Duplicate, 2),
                new ApplyOutcome(ApplyStatus.SessionExpired, 0), new ApplyOutcome(ApplyStatus.Rejected, 0), new ApplyOutcome(ApplyStatus.Applied, 2),
            ],
            await waiter.Task);
        Assert.Equal([1], Read(environment, "a"));
        Assert.Equal([2], Read(environment, "b"));
        Assert.Null(Read(environment, "c"));
        Assert.Null(Read(environment, "d"));
        Assert.Equal([5], Read(environment, "e"));

        // The refused command touched no session: d's first write is still its first.
        var next = new ApplyWaiter([new OperationId(d, 1)]);
        await AppendCommitAndApply(log, BatchCodecTests.Encode([Put(d, 1, "d", 6)]), next);
        Assert.Equal([new ApplyOutcome(ApplyStatus.Applied, 3)], await next.Task);
        Assert.True(environment.Verify().Entries > 0); // Verify throws on any damage
    }

    [Fact]
    public async Task A_batch_appended_before_a_crash_but_never_applied_is_applied_once_on_restart()
    {
        var logPath = directory.File("raft");
        var client = Guid.NewGuid();
        var other = Guid.NewGuid();
        // The log holds and committed both entries, but the crash came before Cairn applied either.
        await using (var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, new NothingApplied()))
        {
            await log.InitializeAsync();
            await AppendCommitAndApply(log, BatchCodecTests.Encode([Put(client, 1, "k", 1), Put(other, 1, "j", 1)]), null);
            await AppendCommitAndApply(log, BatchCodecTests.Encode([Put(client, 2, "k", 2), Put(client, 1, "k", 1)]), null);
        }

        using var environment = Open(directory.File("data"));
        var transactionsBefore = environment.LastCommittedTransactionId;
        for (var restart = 0; restart < 2; restart++)
        {
            var machine = new CairnStateMachine(environment);
            await using var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, machine);
            await log.InitializeAsync();
            await log.WaitForApplyAsync(2);
            Assert.Equal(2, machine.AppliedIndex);
            // One transaction per entry, on the first restart only: the second skips both, so the late copy of
            // client's write 1 (in entry 2) and entry 1 itself never set k back to 1.
            Assert.Equal(transactionsBefore + 2, environment.LastCommittedTransactionId);
            Assert.Equal([2], Read(environment, "k"));
            Assert.Equal([1], Read(environment, "j"));
        }

        Assert.True(environment.Verify().Entries > 0);
    }

    [Fact]
    public async Task A_waiter_whose_entry_was_replaced_by_another_learns_so_for_each_command()
    {
        var mine = new[] { new OperationId(Guid.NewGuid(), 1), new OperationId(Guid.NewGuid(), 1) };
        var waiter = new ApplyWaiter(mine);
        var stranger = new OperationId(Guid.NewGuid(), 1);
        waiter.Complete(new EntryOutcome(ApplyStatus.Applied, [new CommandOutcome(mine[0], new ApplyOutcome(ApplyStatus.Applied, 4)), new CommandOutcome(stranger, new ApplyOutcome(ApplyStatus.Applied, 4))]));
        Assert.All(await waiter.Task, outcome => Assert.Equal(ApplyStatus.Replaced, outcome.Status));

        var noOp = new ApplyWaiter(mine);
        noOp.Complete(new EntryOutcome(ApplyStatus.NoOp, []));
        Assert.All(await noOp.Task, outcome => Assert.Equal(ApplyStatus.Replaced, outcome.Status));
    }

    private static async Task AppendCommitAndApply(WriteAheadLog log, byte[] entry, ApplyWaiter? waiter)
    {
        var index = await log.AppendAsync(new BinaryLogEntry { Content = entry, Term = 1, Context = waiter });
        await log.CommitAsync(index);
        await log.WaitForApplyAsync(index);
    }

    private static ClusterCommand Put(Guid client, long sequence, string key, byte value)
        => new(new OperationId(client, sequence), Tree, [ClusterOperation.Put(System.Text.Encoding.UTF8.GetBytes(key), [value])]);

    private static byte[]? Read(StorageEnvironment environment, string key)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree(Tree, out var tree) ? tree.Get(System.Text.Encoding.UTF8.GetBytes(key)) : null;
    }

    private static StorageEnvironment Open(string path) => StorageEnvironment.Open(new StorageOptions(path));

    /// <summary>A state machine that applies nothing: the log's view of a node that crashed before its applier ran.</summary>
    private sealed class NothingApplied : IStateMachine
    {
        public ISnapshot? Snapshot => null;

        public ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token) => ValueTask.FromResult(entry.Index);

        public ValueTask ReclaimGarbageAsync(long watermark, CancellationToken token) => ValueTask.CompletedTask;
    }
}
