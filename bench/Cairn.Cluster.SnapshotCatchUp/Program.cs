using System.Buffers;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using Cairn;
using Cairn.Cluster;
using Cairn.Cluster.Commands;
using Cairn.Cluster.Snapshots;
using Cairn.Cluster.StateMachine;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

// A node far behind catching up by snapshot, against a plain backup of the same environment, interleaved A B A B in
// one run on this machine's disk (.scratch/, real disk). The leader's environment is filled once through the state
// machine (commands of 64 puts of 1 KiB); then each round times
//   A: the plain backup, StorageEnvironment.Backup into a new directory (what an operator runs), and
//      (for scale, not in the ratio) a backup as a stream into a file, then Restore of that file and its first open;
//   B: the catch-up: the leader's snapshot (a backup stream of its live environment) sent over a loopback TCP socket
//      to an empty follower, which restores it as it arrives, opens it to check it, and swaps it in (SnapshotInstaller).
// Rate = the environment's data bytes / time. Prints each round with the load average beside it.
//   dotnet build bench/Cairn.Cluster.SnapshotCatchUp -c Release -o .scratch/snapshot-bin && dotnet .scratch/snapshot-bin/Cairn.Cluster.SnapshotCatchUp.dll [megabytes] [rounds]
var megabytes = args.Length > 0 ? int.Parse(args[0]) : 256;
var rounds = args.Length > 1 ? int.Parse(args[1]) : 3;
var root = Path.Combine(FindRepositoryRoot(), ".scratch", "snapshot-catch-up");
if (Directory.Exists(root))
    Directory.Delete(root, recursive: true);
Directory.CreateDirectory(root);
try
{
    await using var leader = Node.Open(Path.Combine(root, "leader"));
    var fill = Stopwatch.StartNew();
    var entries = await FillAsync(leader.Machine, megabytes);
    var dataBytes = new DirectoryInfo(leader.Folders.Data).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length);
    Console.WriteLine($"leader: {entries} entries, {dataBytes / 1e6:F0} MB on disk, filled in {fill.Elapsed.TotalSeconds:F0} s, snapshot point {leader.Machine.SnapshotIndex}");

    var toBackup = new List<double>();
    var toStreamBackup = new List<double>();
    for (var round = 0; round < rounds; round++)
    {
        var backup = Time(() =>
        {
            leader.Machine.Environment.Backup(Path.Combine(root, $"backup-{round}"));
            return Task.CompletedTask;
        });
        var backupSeconds = (await backup).TotalSeconds;
        var streamFile = Path.Combine(root, "stream.bin");
        var streamBackupSeconds = (await Time(() =>
        {
            using var file = File.Create(streamFile);
            leader.Machine.Environment.Backup(file);
            file.Flush(flushToDisk: true);
            return Task.CompletedTask;
        })).TotalSeconds;
        var restoreSeconds = (await Time(() =>
        {
            using (var file = File.OpenRead(streamFile))
                EnvironmentBackup.Restore(file, Path.Combine(root, "restored"));
            StorageEnvironment.Open(new StorageOptions(Path.Combine(root, "restored"))).Dispose();
            return Task.CompletedTask;
        })).TotalSeconds;
        Directory.Delete(Path.Combine(root, "restored"), recursive: true);
        File.Delete(streamFile);
        var backupLoad = Load();
        Directory.Delete(Path.Combine(root, $"backup-{round}"), recursive: true);

        await using var follower = Node.Open(Path.Combine(root, $"follower-{round}"));
        var catchUpSeconds = (await Time(() => SendOverLoopbackAsync(leader, follower))).TotalSeconds;
        if (follower.Machine.AppliedIndex != entries)
            throw new InvalidOperationException($"the follower holds index {follower.Machine.AppliedIndex}, not {entries}");
        var catchUpLoad = Load();

        toBackup.Add(backupSeconds / catchUpSeconds);
        toStreamBackup.Add(streamBackupSeconds / catchUpSeconds);
        Console.WriteLine($"round {round}: backup {dataBytes / 1e6 / backupSeconds:F0} MB/s ({backupSeconds:F1} s, load {backupLoad}), " +
                          $"catch-up by snapshot {dataBytes / 1e6 / catchUpSeconds:F0} MB/s ({catchUpSeconds:F1} s, load {catchUpLoad}), ratio {backupSeconds / catchUpSeconds:F2}; " +
                          $"backup as a stream to a file {streamBackupSeconds:F1} s (catch-up / it {streamBackupSeconds / catchUpSeconds:F2}), restore of that file and open {restoreSeconds:F1} s");
    }

    Console.WriteLine($"median of {rounds} rounds ({dataBytes / 1e6:F0} MB environment): catch-up rate / directory backup rate = {Median(toBackup):F2}, " +
                      $"catch-up rate / stream backup rate = {Median(toStreamBackup):F2}");
}
finally
{
    Directory.Delete(root, recursive: true);
}

static async Task<long> FillAsync(CairnStateMachine machine, int megabytes)
{
    var random = new Random(1);
    var client = Guid.NewGuid();
    var value = new byte[1024];
    long index = 0;
    for (long written = 0; written < megabytes * 1024L * 1024L; written += 64 * 1024)
    {
        var operations = new ClusterOperation[64];
        for (var i = 0; i < operations.Length; i++)
        {
            random.NextBytes(value);
            var key = new byte[16];
            random.NextBytes(key);
            operations[i] = ClusterOperation.Put(key, value.ToArray());
        }

        index++;
        var command = new ClusterCommand(new OperationId(client, index), "orders", operations);
        await machine.ApplyAsync(index, new ReadOnlySequence<byte>(CommandCodec.Encode(command)), null, default, term: 1);
    }

    return index;
}

static async Task SendOverLoopbackAsync(Node leader, Node follower)
{
    using var listener = new TcpListener(IPAddress.Loopback, 0);
    listener.Start();
    using var sending = new TcpClient();
    await sending.ConnectAsync((IPEndPoint)listener.LocalEndpoint);
    using var receiving = await listener.AcceptTcpClientAsync();
    var snapshot = ((ISnapshotManager)leader.Machine).Snapshot ?? throw new InvalidOperationException("the leader has no snapshot");
    var send = Task.Run(async () =>
    {
        await using var output = sending.GetStream();
        await snapshot.WriteToAsync(IAsyncBinaryWriter.Create(output, new byte[64 << 10]), default);
        sending.Client.Shutdown(SocketShutdown.Send);
    });
    await follower.Machine.InstallAsync(new StreamTransferObject(receiving.GetStream(), leaveOpen: true), snapshot.Index, snapshot.Term, default);
    await send;
}

static async Task<TimeSpan> Time(Func<Task> run)
{
    var clock = Stopwatch.StartNew();
    await run();
    return clock.Elapsed;
}

static double Median(List<double> values) => values.Order().ElementAt(values.Count / 2);

static string Load() => File.ReadAllText("/proc/loadavg").Split(' ')[0];

static string FindRepositoryRoot()
{
    for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
    {
        if (File.Exists(Path.Combine(directory.FullName, "Storage.sln")))
            return directory.FullName;
    }

    throw new DirectoryNotFoundException("Storage.sln not found above " + AppContext.BaseDirectory);
}

/// <summary>A node's folders and state machine without Raft, as ClusterNode lays them out.</summary>
internal sealed class Node(NodeFolders folders, EnvironmentSlot slot, CairnStateMachine machine) : IAsyncDisposable
{
    public NodeFolders Folders => folders;

    public CairnStateMachine Machine => machine;

    public static Node Open(string directory)
    {
        var folders = new NodeFolders(directory);
        folders.Recover();
        var slot = new EnvironmentSlot(OpenEnvironment(folders.Data));
        // One snapshot point per 16 entries, so the leader has one covering nearly all of the fill.
        return new Node(folders, slot, new CairnStateMachine(slot, CairnStateMachine.DefaultSessionCapacity, 16, new SnapshotInstaller(folders, slot, OpenEnvironment)));
    }

    public ValueTask DisposeAsync() => slot.DisposeAsync();

    private static StorageEnvironment OpenEnvironment(string path) => StorageEnvironment.Open(new StorageOptions(path));
}
