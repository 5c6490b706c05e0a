using Cairn.Cluster.Tests.Nemesis.Processes;
using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>A schedule run for real: stand-in node processes, the nemesis's own network between plain sockets.</summary>
public sealed class NemesisRunnerProcessTests
{
    [Fact]
    public async Task A_schedule_runs_on_real_processes_and_the_network_and_leaves_every_node_running()
    {
        using var dir = new TestDirectory("nemesis-runner-processes");
        string marker = Guid.NewGuid().ToString("N");
        await using var sockets = new PlainSocketNodes(3);
        var nodes = new List<NodeProcess>();
        try
        {
            for (int i = 0; i < 3; i++)
                nodes.Add(await NodeProcess.StartAsync($"n{i}", CounterNode.Command(dir, dir.File($"n{i}.count"), marker), dir.Path));
            var targets = new ProcessTargets(nodes, sockets.Network);
            var schedule = NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(3, 1, 40, Disks: false), seed: 34);
            var runner = new NemesisRunner(targets, new NemesisEventLog(dir.File("nemesis.log")));

            await runner.RunAsync(schedule, _ =>
            {
                nodes.ForEach(node => node.ThrowIfExited());
                return Task.CompletedTask;
            });

            Assert.All(nodes, node => Assert.Equal(NodeProcessState.Running, node.State));
            Assert.All(Enumerable.Range(0, 3), i => Assert.Equal(LinkMode.Pass, sockets.Network.Link(i, (i + 1) % 3).Behaviour.Mode));
            Assert.Equal(schedule.Count, File.ReadAllLines(runner.Log.Path).Length);
            Assert.Equal(3 + schedule.Count(e => e.Action == NemesisAction.Restart), nodes.Sum(n => n.Runs));
            var counts = nodes.Select(n => CounterNode.Count(dir.File($"{n.Name}.count"))).ToArray();
            await Eventually.HoldsAsync(
                () => nodes.Select(n => CounterNode.Count(dir.File($"{n.Name}.count"))).Zip(counts).All(c => c.First > c.Second),
                () => "every node to count after the schedule");
        }
        finally
        {
            foreach (var node in nodes)
                await node.DisposeAsync();
        }
        Assert.Empty(CounterNode.LiveProcessesMarked(marker));
    }

    /// <summary>Three stand-in processes, the leader being the lowest-numbered one that runs (a stand-in's notion).</summary>
    private sealed class ProcessTargets(IReadOnlyList<NodeProcess> nodes, NemesisNetwork network) : INemesisTargets
    {
        public int NodeCount => nodes.Count;

        public INetworkNemesis Network => network;

        public Task<int?> FindLeaderAsync()
            => Task.FromResult(Enumerable.Range(0, nodes.Count).Where(i => nodes[i].State == NodeProcessState.Running).Cast<int?>().FirstOrDefault());

        public IProcessNemesis Process(int node) => nodes[node];

        public IDiskNemesis? Disk(int node) => null;
    }
}
