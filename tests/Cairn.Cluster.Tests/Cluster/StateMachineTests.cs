using System.Buffers;
using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;
using Cairn.Tests.Support;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>The Cairn-backed state machine alone, and under DotNext's own WriteAheadLog, on a real environment on disk.</summary>
public sealed class StateMachineTests : IDisposable
{
    private static readonly byte[] Key = "k"u8.ToArray();
    private readonly TestDirectory directory = new("cluster-sm");
    private StorageEnvironment environment;

    public StateMachineTests() => environment = Open();

    public void Dispose()
    {
        environment.Dispose();
        directory.Dispose();
    }

    [Fact]
    public async Task Applies_puts_and_deletes_in_one_transaction_with_the_index()
    {
        var machine = new CairnStateMachine(environment);
        var client = Guid.NewGuid();
        var put = await machine.ApplyAsync(1, Payload(client, 1, ClusterOperation.Put(Key, [1]), ClusterOperation.Put([2], [2])), null, default);
        Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 1), put);
        var noOp = await machine.ApplyAsync(2, ReadOnlySequence<byte>.Empty, null, default);
        Assert.Equal(ApplyStatus.NoOp, noOp.Status);
        await machine.ApplyAsync(3, Payload(client, 2, ClusterOperation.Delete([2])), null, default);

        Assert.Equal([1], Read(Key));
        Assert.Null(Read([2]));
        Assert.Equal(3, machine.AppliedIndex);
        Assert.Equal(3, new CairnStateMachine(environment).AppliedIndex);
    }

    [Fact]
    public async Task A_retried_operation_id_is_applied_once_even_after_the_clients_next_write()
    {
        var machine = new CairnStateMachine(environment);
        var client = Guid.NewGuid();
        await machine.ApplyAsync(1, Payload(client, 1, ClusterOperation.Put(Key, "first"u8.ToArray())), null, default);
        await machine.ApplyAsync(2, Payload(client, 2, ClusterOperation.Put(Key, "second"u8.ToArray())), null, default);

        // Write 2 retried (its acknowledgement was lost): the original's index comes back, nothing changes.
        Assert.Equal(new ApplyOutcome(ApplyStatus.Duplicate, 2),
            await machine.ApplyAsync(3, Payload(client, 2, ClusterOperation.Put(Key, "second"u8.ToArray())), null, default));
        // A late copy of write 1 lands after write 2: it must not set the key back.
        Assert.Equal(ApplyStatus.Duplicate,
            (await machine.ApplyAsync(4, Payload(client, 1, ClusterOperation.Put(Key, "first"u8.ToArray())), null, default)).Status);
        Assert.Equal("second"u8.ToArray(), Read(Key));
        Assert.Equal(4, machine.AppliedIndex);
    }

    [Fact]
    public async Task After_a_restart_entries_the_environment_holds_are_skipped_and_the_applied_index_never_goes_back()
    {
        var machine = new CairnStateMachine(environment);
        var (a, b) = (Guid.NewGuid(), Guid.NewGuid());
        await machine.ApplyAsync(1, Payload(a, 1, ClusterOperation.Put(Key, "a"u8.ToArray())), null, default);
        await machine.ApplyAsync(2, Payload(b, 1, ClusterOperation.Put(Key, "b"u8.ToArray())), null, default);
        Reopen();
        machine = new CairnStateMachine(environment);
        Assert.Equal(2, machine.AppliedIndex);

        // The log replays from its start after a restart (no snapshot): entry 1 again, alone for now.
        Assert.Equal(ApplyStatus.AlreadyApplied, (await machine.ApplyAsync(1, Payload(a, 1, ClusterOperation.Put(Key, "a"u8.ToArray())), null, default)).Status);
        Assert.Equal("b"u8.ToArray(), Read(Key));
        Assert.Equal(2, new CairnStateMachine(environment).AppliedIndex);
    }

    [Fact]
    public async Task The_session_table_keeps_its_bound_and_an_evicted_client_is_refused_not_applied_twice()
    {
        var machine = new CairnStateMachine(environment, sessionCapacity: 2);
        var clients = new[] { Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid() };
        for (var i = 0; i < clients.Length; i++)
            await machine.ApplyAsync(i + 1, Payload(clients[i], 1, ClusterOperation.Put([(byte)i], [1])), null, default);
        using (var read = environment.BeginRead())
        {
            Assert.Equal(2, read.OpenTree(ClusterTrees.Sessions).Count);
            Assert.Equal(2, read.OpenTree(ClusterTrees.SessionsByAge).Count);
        }

        // The least recently used (client 0) was evicted: its next write, or a retry of its first, is refused.
        Assert.Equal(ApplyStatus.SessionExpired, (await machine.ApplyAsync(4, Payload(clients[0], 2, ClusterOperation.Put(Key, [1])), null, default)).Status);
        Assert.Null(Read(Key));
        // Client 1 wrote, so client 2 is now the oldest... and a write by client 1 keeps it.
        Assert.Equal(ApplyStatus.Applied, (await machine.ApplyAsync(5, Payload(clients[1], 2, ClusterOperation.Put(Key, [2])), null, default)).Status);
        Assert.Equal(ApplyStatus.Duplicate, (await machine.ApplyAsync(6, Payload(clients[1], 2, ClusterOperation.Put(Key, [2])), null, default)).Status);
        // A client that was never seen starts at 1, or is refused.
        Assert.Equal(ApplyStatus.SessionExpired, (await machine.ApplyAsync(7, Payload(Guid.NewGuid(), 5, ClusterOperation.Put(Key, [3])), null, default)).Status);
        Assert.Equal([2], Read(Key));
    }

    [Fact]
    public async Task A_damaged_entry_throws_a_typed_exception_naming_its_index_and_changes_nothing()
    {
        var machine = new CairnStateMachine(environment);
        await machine.ApplyAsync(1, Payload(Guid.NewGuid(), 1, ClusterOperation.Put(Key, [1])), null, default);
        var bytes = CommandCodec.Encode(CommandCodecTests.Sample());
        bytes[20] ^= 0x10;
        var refused = await Assert.ThrowsAsync<CorruptCommandException>(() => machine.ApplyAsync(2, new ReadOnlySequence<byte>(bytes), null, default).AsTask());
        Assert.Equal(2, refused.LogIndex);
        Assert.Equal(1, machine.AppliedIndex);
        Assert.Equal([1], Read(Key));
    }

    [Fact]
    public async Task A_writer_is_told_when_another_command_took_its_entrys_place()
    {
        var machine = new CairnStateMachine(environment);
        var outcome = await machine.ApplyAsync(1, Payload(Guid.NewGuid(), 1, ClusterOperation.Put(Key, [1])), new OperationId(Guid.NewGuid(), 1), default);
        Assert.Equal(ApplyStatus.Replaced, outcome.Status);
        Assert.Equal([1], Read(Key)); // the other command was applied all the same
    }

    [Fact]
    public async Task Under_DotNexts_log_a_restart_replays_the_log_without_applying_an_entry_twice()
    {
        var logPath = directory.File("raft");
        var client = Guid.NewGuid();
        await using (var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, new CairnStateMachine(environment)))
        {
            await log.InitializeAsync();
            for (var sequence = 1; sequence <= 3; sequence++)
                await AppendCommitAndApply(log, Payload(client, sequence, ClusterOperation.Put(Key, [(byte)sequence])));
        }

        Reopen();
        var machine = new CairnStateMachine(environment);
        await using (var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, machine))
        {
            await log.InitializeAsync();
            Assert.Equal(3, log.LastAppliedIndex);
            Assert.Equal(3, machine.AppliedIndex);
            Assert.Equal([3], Read(Key));
            await AppendCommitAndApply(log, Payload(client, 4, ClusterOperation.Delete(Key)));
            Assert.Equal(4, machine.AppliedIndex);
            Assert.Null(Read(Key));
        }

        Assert.True(environment.Verify().Entries > 0); // Verify throws on any damage
    }

    internal static async Task AppendCommitAndApply(WriteAheadLog log, ReadOnlySequence<byte> payload)
    {
        var index = await log.AppendAsync(new BinaryLogEntry { Content = payload.ToArray(), Term = 1 });
        await log.CommitAsync(index);
        await log.WaitForApplyAsync(index);
    }

    private static ReadOnlySequence<byte> Payload(Guid client, long sequence, params ClusterOperation[] operations)
        => new(CommandCodec.Encode(new ClusterCommand(new OperationId(client, sequence), "t", operations)));

    private byte[]? Read(byte[] key)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree("t", out var tree) ? tree.Get(key) : null;
    }

    private StorageEnvironment Open() => StorageEnvironment.Open(new StorageOptions(directory.File("data")));

    private void Reopen()
    {
        environment.Dispose();
        environment = Open();
    }
}
