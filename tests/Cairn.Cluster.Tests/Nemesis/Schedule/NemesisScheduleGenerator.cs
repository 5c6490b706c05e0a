namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// A seeded nemesis schedule: the same seed and options give the same events, so a failed campaign is replayed by
/// its seed. Each step picks uniformly among the kinds of event possible now (a fault that keeps within the limit,
/// or a recovery of a fault in force), then the target; the schedule ends with every fault undone (a heal, then a
/// resume, disk free and restart for each node left faulted) so the campaign's final convergence check can run.
/// </summary>
public static class NemesisScheduleGenerator
{
    public static IReadOnlyList<NemesisEvent> Generate(NemesisScheduleOptions options, int seed)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        var random = new Random(seed);
        var state = new FaultState(options.NodeCount);
        var events = new List<NemesisEvent>();
        for (int step = 0; step < options.Events; step++)
        {
            var possible = Possible(state, options, step);
            var next = possible[random.Next(possible.Count)](random);
            state.Apply(next);
            events.Add(next);
        }

        foreach (var closing in Closing(state, events.Count))
        {
            state.Apply(closing);
            events.Add(closing);
        }
        return events;
    }

    private static List<NemesisEvent> Closing(FaultState state, int step)
    {
        var closing = new List<NemesisEvent> { new(step++, NemesisAction.Heal) };
        var nodes = Enumerable.Range(0, state.NodeCount).ToList();
        closing.AddRange(nodes.Where(state.IsPaused).Select(node => new NemesisEvent(step++, NemesisAction.Resume, node)));
        closing.AddRange(nodes.Where(state.IsDiskFull).Select(node => new NemesisEvent(step++, NemesisAction.DiskFree, node)));
        closing.AddRange(nodes.Where(state.IsRemoved).Select(node => new NemesisEvent(step++, NemesisAction.Add, node)));
        closing.AddRange(nodes.Where(state.IsKilled).Select(node => new NemesisEvent(step++, NemesisAction.Restart, node)));
        return closing;
    }

    /// <summary>One maker per kind of event possible now; each picks its target with the random source it is given.</summary>
    private static List<Func<Random, NemesisEvent>> Possible(FaultState state, NemesisScheduleOptions options, int step)
    {
        var nodes = Enumerable.Range(0, state.NodeCount).ToList();
        // A fault may land on a node already faulted (the count stays) or on a healthy one while the limit allows.
        bool MayFault(int node) => state.IsFaulted(node) || state.FaultedCount < options.MaxFaultedNodes;
        bool Alive(int node) => !state.IsKilled(node) && !state.IsPaused(node) && !state.IsRemoved(node);
        var makers = new List<Func<Random, NemesisEvent>>();

        void AddOn(List<int> targets, Func<Random, int, NemesisEvent> make)
        {
            if (targets.Count > 0)
                makers.Add(random => make(random, targets[random.Next(targets.Count)]));
        }

        // Kills and pauses on a healthy node want the leader or a follower: the runner trades for one at apply time.
        WantedRole Role(Random random, int node) => state.IsFaulted(node) ? WantedRole.Planned : random.Next(2) == 0 ? WantedRole.Leader : WantedRole.Follower;

        var faultable = nodes.Where(n => Alive(n) && MayFault(n)).ToList();
        AddOn(faultable, (r, n) => new NemesisEvent(step, NemesisAction.Kill, n, Wanted: Role(r, n)));
        AddOn(faultable, (r, n) => new NemesisEvent(step, NemesisAction.Pause, n, Wanted: Role(r, n)));
        AddOn(nodes.Where(state.IsKilled).ToList(), (_, n) => new NemesisEvent(step, NemesisAction.Restart, n));
        AddOn(nodes.Where(state.IsPaused).ToList(), (_, n) => new NemesisEvent(step, NemesisAction.Resume, n));
        // Membership changes only on a whole network, and none while a place is empty: a cluster short of a member
        // has no margin for a link fault on top (a delayed pair would be its whole majority).
        AddOn(nodes.Where(state.IsRemoved).ToList(), (_, n) => new NemesisEvent(step, NemesisAction.Add, n));
        if (!state.NetworkFaulted && state.FreshCommitted < options.FreshNodes)
        {
            AddOn(faultable, (r, n) => new NemesisEvent(step, NemesisAction.Remove, n, Wanted: Role(r, n)));
            AddOn(nodes.Where(state.IsKilled).ToList(), (_, n) => new NemesisEvent(step, NemesisAction.Replace, n));
        }

        if (options.Disks)
        {
            AddOn(nodes.Where(n => !state.IsDiskFull(n) && MayFault(n)).ToList(), (_, n) => new NemesisEvent(step, NemesisAction.DiskFull, n));
            AddOn(nodes.Where(state.IsDiskFull).ToList(), (_, n) => new NemesisEvent(step, NemesisAction.DiskFree, n));
        }

        if (state.NetworkFaulted)
        {
            makers.Add(_ => new NemesisEvent(step, NemesisAction.Heal));
            return makers;
        }

        if (state.AnyRemoved)
            return makers;

        var minorities = MinoritiesOf[state.NodeCount].Where(m => nodes.Count(n => state.IsFaulted(n) || m.Contains(n)) <= options.MaxFaultedNodes).ToList();
        if (minorities.Count > 0)
        {
            makers.Add(random =>
            {
                var minority = minorities[random.Next(minorities.Count)];
                // A lone healthy node cut off may be traded for the leader: "leader isolated".
                var wanted = minority.Count == 1 && !state.IsFaulted(minority[0]) && random.Next(2) == 0 ? WantedRole.Leader : WantedRole.Planned;
                return new NemesisEvent(step, NemesisAction.Partition, minority[0], Wanted: wanted) { Nodes = minority };
            });
        }

        var senders = nodes.Where(MayFault).ToList();
        AddOn(senders, (r, n) => new NemesisEvent(step, NemesisAction.OneWay, n, OtherThan(r, n, state.NodeCount)));
        AddOn(senders, (r, n) => new NemesisEvent(step, NemesisAction.Delay, n, OtherThan(r, n, state.NodeCount)) { Delay = options.Delays[r.Next(options.Delays.Count)] });
        return makers;
    }

    private static int OtherThan(Random random, int node, int nodeCount)
    {
        int other = random.Next(nodeCount - 1);
        return other >= node ? other + 1 : other;
    }

    /// <summary>Every set of fewer than half the nodes, for each node count a schedule may have; built once.</summary>
    private static readonly IReadOnlyList<int>[][] MinoritiesOf = Enumerable.Range(0, 10).Select(Minorities).ToArray();

    /// <summary>Every set of fewer than half the nodes, smallest first, each in ascending order.</summary>
    private static IReadOnlyList<int>[] Minorities(int nodeCount)
    {
        var minorities = new List<IReadOnlyList<int>>();
        for (int mask = 1; mask < 1 << nodeCount; mask++)
        {
            var members = Enumerable.Range(0, nodeCount).Where(n => (mask & (1 << n)) != 0).ToList();
            if (members.Count * 2 < nodeCount)
                minorities.Add(members);
        }
        return minorities.OrderBy(m => m.Count).ThenBy(m => string.Join(",", m)).ToArray();
    }
}
