namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// Replays a schedule and checks every event is one the nodes can take at that point and keeps to the options'
/// limit, and that the schedule ends with nothing faulted: what the generator promises, checked apart from it.
/// </summary>
internal static class ScheduleChecks
{
    public static void AssertValid(IReadOnlyList<NemesisEvent> schedule, NemesisScheduleOptions options)
    {
        var state = new FaultState(options.NodeCount);
        for (int i = 0; i < schedule.Count; i++)
        {
            var e = schedule[i];
            // Messages built only on failure: a whole schedule per event would make the property quadratic.
            string Where() => $"{e} in [{string.Join("; ", schedule)}]";
            if (e.Step != i)
                Assert.Fail($"step {e.Step} at {i}: {Where()}");
            if (!CanTake(state, e, options, closing: i >= options.Events))
                Assert.Fail($"not possible here: {Where()}");
            if (e.Wanted != WantedRole.Planned && state.IsFaulted(e.Node))
                Assert.Fail($"only a healthy node is traded for a role: {Where()}");
            state.Apply(e);
            if (state.FaultedCount > options.MaxFaultedNodes)
                Assert.Fail($"{state.FaultedCount} nodes faulted after {Where()}");
            if (state.FreshUsed > options.FreshNodes)
                Assert.Fail($"{state.FreshUsed} fresh nodes used of {options.FreshNodes} after {Where()}");
        }
        Assert.True(state.IsHealed, $"not healed at the end: [{string.Join("; ", schedule)}]");
        Assert.Equal(NemesisAction.Heal, schedule[options.Events].Action);
        Assert.All(schedule.Skip(options.Events + 1), e => Assert.Contains(e.Action, new[] { NemesisAction.Resume, NemesisAction.DiskFree, NemesisAction.Add, NemesisAction.Restart }));
    }

    private static bool CanTake(FaultState state, NemesisEvent e, NemesisScheduleOptions options, bool closing)
    {
        bool Node(int n) => n >= 0 && n < options.NodeCount;
        bool alive = Node(e.Node) && !state.IsKilled(e.Node) && !state.IsPaused(e.Node) && !state.IsRemoved(e.Node);
        bool membershipMay = !state.NetworkFaulted && state.FreshCommitted < options.FreshNodes;
        bool linksMay = !state.NetworkFaulted && !state.AnyRemoved;
        return e.Action switch
        {
            NemesisAction.Kill or NemesisAction.Pause => alive,
            NemesisAction.Restart => state.IsKilled(e.Node),
            NemesisAction.Resume => state.IsPaused(e.Node),
            NemesisAction.DiskFull => options.Disks && Node(e.Node) && !state.IsDiskFull(e.Node),
            NemesisAction.DiskFree => options.Disks && state.IsDiskFull(e.Node),
            NemesisAction.Remove => alive && membershipMay,
            NemesisAction.Add => Node(e.Node) && state.IsRemoved(e.Node),
            NemesisAction.Replace => Node(e.Node) && state.IsKilled(e.Node) && membershipMay,
            NemesisAction.Partition => linksMay && e.Nodes.Count > 0 && e.Nodes.Count * 2 < options.NodeCount
                && e.Nodes.All(Node) && e.Nodes.Distinct().Count() == e.Nodes.Count && e.Node == e.Nodes[0],
            NemesisAction.OneWay => linksMay && Node(e.Node) && Node(e.Other) && e.Node != e.Other,
            NemesisAction.Delay => linksMay && Node(e.Node) && Node(e.Other) && e.Node != e.Other && options.Delays.Contains(e.Delay),
            NemesisAction.Heal => state.NetworkFaulted || closing,
            _ => false,
        };
    }
}
