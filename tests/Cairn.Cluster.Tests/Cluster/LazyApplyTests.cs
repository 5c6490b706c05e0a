using System.Buffers;
using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;
using Cairn.Tests.Support;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// The applier commits each entry lazily (the Raft log holds it durably): it does not wait for a Cairn journal write
/// per entry, and an entry a crash takes from Cairn comes back from the log on restart. Cairn's lazy entries are
/// held for an hour here, so nothing but the close writes them and the crash image is sure to lack them.
/// </summary>
public sealed class LazyApplyTests : IDisposable
{
    private static readonly byte[] Key = "k"u8.ToArray();
    private readonly TestDirectory directory = new("cluster-lazy");

    public void Dispose() => directory.Dispose();

    [Fact]
    public async Task Applying_an_entry_publishes_it_without_waiting_for_a_journal_write()
    {
        using var environment = Open(directory.File("data"));
        var machine = new CairnStateMachine(environment);
        var client = Guid.NewGuid();
        var durableBefore = environment.LastDurableTransactionId;
        for (var sequence = 1; sequence <= 3; sequence++)
        {
            var outcome = await machine.ApplyAsync(sequence, Payload(client, sequence, (byte)sequence), null, default);
            Assert.Equal(ApplyStatus.Applied, outcome.Status);
        }

        Assert.Equal([3], Read(environment, Key)); // published: a read sees every applied entry
        Assert.Equal(3, machine.AppliedIndex);
        Assert.Equal(durableBefore, environment.LastDurableTransactionId); // and none of them waited for the disk
        Assert.True(environment.LastCommittedTransactionId > durableBefore);
    }

    [Fact]
    public async Task Entries_a_crash_takes_from_Cairn_are_applied_again_from_the_Raft_log()
    {
        var logPath = directory.File("raft");
        var crashImage = directory.File("crash");
        var client = Guid.NewGuid();
        using (var environment = Open(directory.File("data")))
        {
            await using var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, new CairnStateMachine(environment));
            await log.InitializeAsync();
            for (var sequence = 1; sequence <= 3; sequence++)
                await StateMachineTests.AppendCommitAndApply(log, Payload(client, sequence, (byte)sequence));

            // The files as a crash now would leave them: the applied entries are still queued in Cairn's memory.
            CopyFiles(directory.File("data"), crashImage);
        }

        using (var crashed = Open(crashImage))
            Assert.Equal(0, new CairnStateMachine(crashed).AppliedIndex);

        using (var environment = Open(crashImage))
        {
            var machine = new CairnStateMachine(environment);
            await using var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, machine);
            await log.InitializeAsync();
            await log.WaitForApplyAsync(3);
            Assert.Equal(3, machine.AppliedIndex);
            Assert.Equal([3], Read(environment, Key));
            Assert.True(environment.Verify().Entries > 0); // Verify throws on any damage
        }
    }

    private static ReadOnlySequence<byte> Payload(Guid client, long sequence, byte value)
        => new(CommandCodec.Encode(new ClusterCommand(new OperationId(client, sequence), "t", [ClusterOperation.Put(Key, [value])])));

    private static byte[]? Read(StorageEnvironment environment, byte[] key)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree("t", out var tree) ? tree.Get(key) : null;
    }

    private static StorageEnvironment Open(string path)
        => StorageEnvironment.Open(new StorageOptions(path) { LazyCommitMaxDelay = TimeSpan.FromHours(1) });

    /// <summary>
    /// Copies an open environment's files with cp: .NET's own copy takes a shared lock on the source, which the
    /// environment's exclusive lock refuses.
    /// </summary>
    internal static void CopyFiles(string from, string to)
    {
        // Every file and folder (the journals are in one), as they are on disk now.
        var copy = new System.Diagnostics.ProcessStartInfo("cp") { RedirectStandardError = true, ArgumentList = { "-a", from + "/.", to } };
        Directory.CreateDirectory(to);
        using var process = System.Diagnostics.Process.Start(copy)!;
        var errors = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.True(process.ExitCode == 0, $"cp failed: {errors}");
    }
}
