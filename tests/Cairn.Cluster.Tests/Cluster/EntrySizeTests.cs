using System.Buffers;
using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// What docs/decisions.md (issue 28, K) records: the bytes a Raft entry carries for a typical command against the
/// Cairn journal entry the same transaction produces, a plain write's and the state machine's. Sizes only (no
/// timing), so the figures are the same on any machine; the command is always the smaller.
/// </summary>
public sealed class EntrySizeTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(1)]
    [InlineData(100)]
    public async Task A_logical_command_is_smaller_than_the_journal_entry_of_its_transaction(int puts)
    {
        var random = new Random(puts);
        var operations = Enumerable.Range(0, puts).Select(_ => ClusterOperation.Put(Bytes(random, 16), Bytes(random, 100))).ToArray();
        var command = new ClusterCommand(new OperationId(Guid.NewGuid(), 1), "orders", operations);
        var commandBytes = CommandCodec.Encode(command).Length;

        using var plainDirectory = new TestDirectory("cluster-size-plain");
        var plain = await JournalBytesAsync(plainDirectory, environment => environment.WriteAsync(operations, static (transaction, ops) =>
        {
            var tree = transaction.CreateTree("orders");
            foreach (var operation in ops)
                tree.Put(operation.Key, operation.Value);
        }).AsTask());
        using var appliedDirectory = new TestDirectory("cluster-size-applied");
        var applied = await JournalBytesAsync(appliedDirectory, environment =>
            new CairnStateMachine(environment).ApplyAsync(2, new ReadOnlySequence<byte>(CommandCodec.Encode(command)), null, default).AsTask());

        output.WriteLine($"{puts} put(s) of 16 B keys, 100 B values: command {commandBytes} B (+ DotNext's 40 B of entry metadata); " +
            $"Cairn journal entry: plain write {plain} B, the state machine's apply {applied} B (applied index and session included)");
        Assert.True(commandBytes < plain, $"command {commandBytes} B, journal entry {plain} B");
        Assert.True(plain <= applied);
    }

    /// <summary>The journal bytes of the transaction <paramref name="write"/> makes after a first one (log index 1) that created the trees.</summary>
    private static async Task<long> JournalBytesAsync(TestDirectory directory, Func<StorageEnvironment, Task> write)
    {
        using var environment = StorageEnvironment.Open(new StorageOptions(directory.File("data")) { JournalRetentionBytes = 64L << 20 });
        var warmUpRandom = new Random(0);
        var warmUp = new ClusterCommand(new OperationId(Guid.NewGuid(), 1), "orders", [ClusterOperation.Put(Bytes(warmUpRandom, 16), Bytes(warmUpRandom, 100))]);
        var machine = new CairnStateMachine(environment);
        await machine.ApplyAsync(1, new ReadOnlySequence<byte>(CommandCodec.Encode(warmUp)), null, default);
        environment.FlushJournal(); // the state machine commits lazily: its entry reaches the journal here
        long before;
        using (var read = environment.BeginRead())
            before = read.TransactionId;
        await write(environment);
        environment.FlushJournal();
        return environment.ReadJournalEntries(before).Sum(entry => (long)entry.Data.Length);
    }

    private static byte[] Bytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
