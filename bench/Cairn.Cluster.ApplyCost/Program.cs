using System.Buffers;
using System.Diagnostics;
using Cairn;
using Cairn.Cluster;
using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;

// What each node pays to apply a logical command (every node executes every command), against the same put written
// straight to a Cairn environment: both one durable transaction per entry, one after the other, interleaved A B A B
// on fresh environments under .scratch/ (real disk). Prints each round with the load average beside it.
//   dotnet build bench/Cairn.Cluster.ApplyCost -c Release -o .scratch/applycost-bin && dotnet .scratch/applycost-bin/Cairn.Cluster.ApplyCost.dll [rounds] [entries]
var rounds = args.Length > 0 ? int.Parse(args[0]) : 4;
var entries = args.Length > 1 ? int.Parse(args[1]) : 300;
var root = Path.Combine(FindRepositoryRoot(), ".scratch", "apply-cost");
var random = new Random(1);
var puts = Enumerable.Range(0, entries).Select(_ => ClusterOperation.Put(Bytes(16), Bytes(100))).ToArray();
var plainTotal = 0.0;
var appliedTotal = 0.0;
for (var round = 0; round < rounds; round++)
{
    var plain = await MeasureAsync("plain", async environment =>
    {
        foreach (var put in puts)
            await environment.WriteAsync(put, static (transaction, p) => transaction.CreateTree("orders").Put(p.Key, p.Value!));
    });
    var applied = await MeasureAsync("applied", async environment =>
    {
        var machine = new CairnStateMachine(environment);
        var client = Guid.NewGuid();
        for (var i = 0; i < puts.Length; i++)
        {
            var command = new ClusterCommand(new OperationId(client, i + 1), "orders", [puts[i]]);
            await machine.ApplyAsync(i + 1, new ReadOnlySequence<byte>(CommandCodec.Encode(command)), null, default);
        }
    });
    plainTotal += plain;
    appliedTotal += applied;
    Console.WriteLine($"round {round}: plain put {plain:F1} µs/entry, state-machine apply {applied:F1} µs/entry, ratio {applied / plain:F2}  (load {File.ReadAllText("/proc/loadavg").Split(' ')[0]})");
}

Console.WriteLine($"all rounds: apply / plain = {appliedTotal / plainTotal:F2} ({entries} entries of one 16 B / 100 B put, durable commits)");

async Task<double> MeasureAsync(string name, Func<StorageEnvironment, Task> run)
{
    var directory = Path.Combine(root, $"{name}-{Guid.NewGuid():N}");
    try
    {
        using var environment = StorageEnvironment.Open(new StorageOptions(directory));
        var clock = Stopwatch.StartNew();
        await run(environment);
        return clock.Elapsed.TotalMicroseconds / entries;
    }
    finally
    {
        Directory.Delete(directory, recursive: true);
    }
}

byte[] Bytes(int length)
{
    var bytes = new byte[length];
    random.NextBytes(bytes);
    return bytes;
}

static string FindRepositoryRoot()
{
    for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
    {
        if (File.Exists(Path.Combine(dir.FullName, "Storage.sln")))
            return dir.FullName;
    }

    throw new InvalidOperationException($"No Storage.sln above {AppContext.BaseDirectory}.");
}
