namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// Targets that only record: each operation the runner applies, in the cluster's node numbers, and the faults that
/// leaves in force (a <see cref="FaultState"/> kept in cluster numbers). An operation a real node would refuse
/// (killing a dead node, resuming a running one) throws, so a runner that mixed up its nodes fails the test.
/// </summary>
internal sealed class FakeTargets : INemesisTargets, INetworkNemesis, IMembershipNemesis
{
    private readonly Func<FakeTargets, int?> leader;

    public FakeTargets(int nodeCount, Func<FakeTargets, int?> leader)
    {
        NodeCount = nodeCount;
        this.leader = leader;
        Faults = new FaultState(nodeCount);
    }

    public int NodeCount { get; }

    public FaultState Faults { get; }

    public List<string> Applied { get; } = [];

    /// <summary>The leader the runner was last told.</summary>
    public int? LastLeader { get; private set; }

    /// <summary>Set to make the next process operation fail, as a node that cannot be signalled would.</summary>
    public Exception? NextFailure { get; set; }

    public INetworkNemesis Network => this;

    public Task<int?> FindLeaderAsync() => Task.FromResult(LastLeader = leader(this));

    public IProcessNemesis Process(int node) => new FakeProcess(this, node);

    public IDiskNemesis? Disk(int node) => new FakeDisk(this, node);

    public IMembershipNemesis? Membership => this;

    public Task RemoveAsync(int node) => Change(NemesisAction.Remove, node, !Faults.IsKilled(node) && !Faults.IsPaused(node) && !Faults.IsRemoved(node));

    public Task AddFreshAsync(int node) => Change(NemesisAction.Add, node, Faults.IsRemoved(node));

    public Task ReplaceAsync(int node) => Change(NemesisAction.Replace, node, Faults.IsKilled(node));

    internal Task Change(NemesisAction action, int node, bool allowed)
    {
        if (!allowed)
            throw new InvalidOperationException($"{action} on node {node}, which cannot take it");
        Record($"{action.ToString().ToLowerInvariant()} {node}", new(0, action, node));
        return Task.CompletedTask;
    }

    public void Partition(IReadOnlyList<IReadOnlyList<int>> groups, LinkBehaviour? across = null)
    {
        Assert.Equal(2, groups.Count);
        Assert.Equal(Enumerable.Range(0, NodeCount), groups.SelectMany(g => g).Order());
        Record($"partition [{string.Join(",", groups[0])}] from [{string.Join(",", groups[1])}]", new(0, NemesisAction.Partition) { Nodes = groups[0] });
    }

    public void OneWay(int from, int to) => Record($"one-way {from}->{to}", new(0, NemesisAction.OneWay, from, to));

    public void SetBoth(int a, int b, LinkBehaviour behaviour)
        => Record($"delay {a}<->{b} {behaviour.Delay.TotalMilliseconds} ms", new(0, NemesisAction.Delay, a, b) { Delay = behaviour.Delay });

    public void Heal() => Record("heal", new(0, NemesisAction.Heal));

    private void Record(string operation, NemesisEvent inClusterNumbers)
    {
        if (NextFailure is { } failure)
        {
            NextFailure = null;
            throw failure;
        }
        Applied.Add(operation);
        Faults.Apply(inClusterNumbers);
    }

    private sealed class FakeProcess(FakeTargets targets, int node) : IProcessNemesis
    {
        public Task KillAsync() => Do(NemesisAction.Kill, Alive);

        public Task RestartAsync() => Do(NemesisAction.Restart, targets.Faults.IsKilled(node));

        public Task PauseAsync() => Do(NemesisAction.Pause, Alive);

        public Task ResumeAsync() => Do(NemesisAction.Resume, targets.Faults.IsPaused(node));

        private bool Alive => !targets.Faults.IsKilled(node) && !targets.Faults.IsPaused(node) && !targets.Faults.IsRemoved(node);

        private Task Do(NemesisAction action, bool allowed) => targets.Change(action, node, allowed);
    }

    private sealed class FakeDisk(FakeTargets targets, int node) : IDiskNemesis
    {
        public void Fill()
        {
            Assert.False(targets.Faults.IsDiskFull(node), $"disk {node} filled twice");
            targets.Record($"diskfull {node}", new(0, NemesisAction.DiskFull, node));
        }

        public void Free()
        {
            Assert.True(targets.Faults.IsDiskFull(node), $"disk {node} freed while not full");
            targets.Record($"diskfree {node}", new(0, NemesisAction.DiskFree, node));
        }
    }
}
