using System.Buffers;
using Cairn.Cluster.Commands;
using Cairn.Cluster.NodeHost;
using Cairn.Cluster.Snapshots;
using Cairn.Cluster.StateMachine;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Tests.Snapshots;

/// <summary>
/// One node's folder as <see cref="ClusterNode"/> lays it out (environment in <c>data/</c>), with its state machine
/// able to take and install snapshots, without Raft: the tests drive entries and snapshots by hand.
/// </summary>
internal sealed class SnapshotNode : IAsyncDisposable
{
    public const string Tree = "t";

    public SnapshotNode(string directory, long snapshotInterval, Action<SwapStep>? crashHook = null)
    {
        Directory = directory;
        Folders = new NodeFolders(directory) { CrashHook = crashHook };
        Folders.Recover();
        Slot = new EnvironmentSlot(Open(Folders.Data));
        Machine = new CairnStateMachine(Slot, CairnStateMachine.DefaultSessionCapacity, snapshotInterval, new SnapshotInstaller(Folders, Slot, CountedOpen));
    }

    /// <summary>How many times the installer opened an environment.</summary>
    public int InstallerOpens { get; private set; }

    /// <summary>Set, the installer's opens (the new environment's, and the old one's on rollback) fail as a broken disk would.</summary>
    public bool InstallerOpensFail { get; set; }

    public string Directory { get; }

    public NodeFolders Folders { get; }

    public EnvironmentSlot Slot { get; }

    public CairnStateMachine Machine { get; }

    public static StorageEnvironment Open(string path) => StorageEnvironment.Open(new StorageOptions(path));

    private StorageEnvironment CountedOpen(string path)
    {
        InstallerOpens++;
        return InstallerOpensFail ? throw new IOException($"Opening {path} failed (a test's broken disk).") : Open(path);
    }

    /// <summary>Applies entries <paramref name="first"/>..<paramref name="last"/> of term 1, each one client write putting key i.</summary>
    public async Task ApplyAsync(long first, long last, Guid client, int valueBytes = 100)
    {
        for (var index = first; index <= last; index++)
            await Machine.ApplyAsync(index, Put(client, index, valueBytes), null, default, term: 1);
    }

    public static ReadOnlySequence<byte> Put(Guid client, long index, int valueBytes = 100)
        => new(CommandCodec.Encode(new ClusterCommand(new OperationId(client, index), Tree,
            [ClusterOperation.Put(BitConverter.GetBytes(index), Enumerable.Repeat((byte)index, valueBytes).ToArray())])));

    /// <summary>The bytes this node's snapshot sends a follower now.</summary>
    public async Task<byte[]> SnapshotBytesAsync()
    {
        var snapshot = ((ISnapshotManager)Machine).Snapshot ?? throw new InvalidOperationException("No snapshot yet.");
        using var bytes = new MemoryStream();
        await snapshot.WriteToAsync(IAsyncBinaryWriter.Create(bytes, new byte[4096]), default);
        return bytes.ToArray();
    }

    public Task<long> InstallAsync(byte[] snapshot, long index, long term = 1)
        => Machine.InstallAsync(new BinaryTransferObject(snapshot), index, term, default).AsTask();

    public string Dump()
    {
        using var read = Slot.BeginRead();
        return NodeDump.Of(read);
    }

    public ValueTask DisposeAsync() => Slot.DisposeAsync();
}
