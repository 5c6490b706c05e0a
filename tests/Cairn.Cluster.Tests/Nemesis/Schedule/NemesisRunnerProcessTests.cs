using Cairn.Cluster.Tests.Nemesis.Disks;
using Cairn.Cluster.Tests.Nemesis.Processes;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>A schedule run for real: stand-in node processes, the nemesis's own network between plain sockets, and (where the machine can loop-mount) a disk per node.</summary>
public sealed class NemesisRunnerProcessTests(ITestOutputHelper output)
{
    private const int Nodes = 3;

    [Fact]
    public async Task A_schedule_runs_on_real_processes_and_the_network_and_leaves_every_node_running()
    {
        using var dir = new TestDirectory("nemesis-runner-processes");
        await RunAsync(dir, disks: null);
    }

    [Fact]
    public async Task A_schedule_with_disk_faults_runs_on_real_disks_and_leaves_every_node_writing()
    {
        using var dir = new TestDirectory("nemesis-runner-disks");
        var disks = new List<NodeDisk>();
        try
        {
            for (int i = 0; i < Nodes; i++)
            {
                Directory.CreateDirectory(dir.File($"disk{i}"));
                if (NodeDisk.TryCreate(dir.File($"disk{i}"), 16, out string? reason) is not { } disk)
                {
                    output.WriteLine($"NOT RUN: the disk-full nemesis needs a loop mount, which failed here ({reason}).");
                    return;
                }
                disks.Add(disk);
            }
            await RunAsync(dir, disks);
        }
        finally
        {
            disks.ForEach(disk => disk.Dispose());
        }
    }

    /// <summary>
    /// Each node writes and syncs a block of its own per step in its folder (on its disk when it has one; a refused
    /// write is reported on stderr and skipped, as a node would retry), keeping only its last 16 so it never fills
    /// the disk itself, and counts its steps in the scratch folder. After the schedule every node runs and counts on.
    /// </summary>
    private static async Task RunAsync(TestDirectory dir, IReadOnlyList<NodeDisk>? disks)
    {
        string marker = Guid.NewGuid().ToString("N");
        await using var sockets = new PlainSocketNodes(Nodes);
        var nodes = new List<NodeProcess>();
        string Counter(int i) => dir.File($"n{i}.count");
        int Count(int i) => CounterNode.Count(Counter(i));
        try
        {
            for (int i = 0; i < Nodes; i++)
            {
                string folder = disks?[i].DataPath ?? Directory.CreateDirectory(dir.File($"n{i}")).FullName;
                var command = NodeCommand.Bash(
                    $"i=0; while true; do i=$((i+1)); dd if=/dev/zero of=block.$i bs=4096 count=1 oflag=dsync status=none || echo \"refused $i\" >&2; rm -f block.$((i-16)); echo $i >> '{Counter(i)}'; sleep 0.005; done",
                    folder,
                    new Dictionary<string, string?> { [CounterNode.MarkerVariable] = marker });
                nodes.Add(await NodeProcess.StartAsync($"n{i}", command, dir.Path));
            }
            var targets = new ProcessTargets(nodes, sockets.Network, disks);
            var schedule = NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(Nodes, 1, 40, Disks: disks is not null), seed: 34);
            var runner = new NemesisRunner(targets, new NemesisEventLog(dir.File("nemesis.log")));

            await runner.RunAsync(schedule, _ =>
            {
                nodes.ForEach(node => node.ThrowIfExited());
                return Task.CompletedTask;
            });

            Assert.All(nodes, node => Assert.Equal(NodeProcessState.Running, node.State));
            Assert.All(Enumerable.Range(0, Nodes), i => Assert.Equal(LinkMode.Pass, sockets.Network.Link(i, (i + 1) % Nodes).Behaviour.Mode));
            Assert.All(disks ?? [], disk => Assert.False(disk.IsFull));
            Assert.Equal(disks is not null, schedule.Any(e => e.Action == NemesisAction.DiskFull));
            Assert.Equal(schedule.Count, File.ReadAllLines(runner.Log.Path).Length);
            Assert.Equal(Nodes + schedule.Count(e => e.Action == NemesisAction.Restart), nodes.Sum(n => n.Runs));
            var counts = Enumerable.Range(0, Nodes).Select(Count).ToArray();
            await Eventually.HoldsAsync(
                () => Enumerable.Range(0, Nodes).All(i => Count(i) > counts[i]),
                () => $"every node to count after the schedule: {string.Join("; ", nodes.Select(n => n.OutputTail()))}");
        }
        finally
        {
            foreach (var node in nodes)
                await node.DisposeAsync();
        }
        Assert.Empty(CounterNode.LiveProcessesMarked(marker));
    }

    /// <summary>Stand-in processes, the leader being the lowest-numbered one that runs (a stand-in's notion).</summary>
    private sealed class ProcessTargets(IReadOnlyList<NodeProcess> nodes, NemesisNetwork network, IReadOnlyList<NodeDisk>? disks) : INemesisTargets
    {
        public int NodeCount => nodes.Count;

        public INetworkNemesis Network => network;

        public Task<int?> FindLeaderAsync()
            => Task.FromResult(Enumerable.Range(0, nodes.Count).Where(i => nodes[i].State == NodeProcessState.Running).Cast<int?>().FirstOrDefault());

        public IProcessNemesis Process(int node) => nodes[node];

        public IDiskNemesis? Disk(int node) => disks?[node];
    }
}
