using Cairn.Tests.Support;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>The runner on recording targets (<see cref="FakeTargets"/>).</summary>
public sealed class NemesisRunnerTests
{
    [Fact]
    public async Task With_no_leader_known_the_runner_applies_each_event_to_its_planned_node_in_order()
    {
        using var dir = new TestDirectory("nemesis-runner");
        var options = new NemesisScheduleOptions(5, 2, 150, Disks: true) { FreshNodes = 10 };
        var schedule = NemesisScheduleGenerator.Generate(options, seed: 5);
        var targets = new FakeTargets(5, _ => null);
        var log = new NemesisEventLog(dir.File("nemesis.log"));

        await new NemesisRunner(targets, log).RunAsync(schedule);

        Assert.Equal(schedule.Select(Planned), targets.Applied);
        Assert.True(targets.Faults.IsHealed);
        var written = File.ReadAllLines(log.Path);
        Assert.Equal(schedule.Count, written.Length);
        Assert.All(schedule.Zip(written), pair => Assert.Contains($" {pair.First} -> ", pair.Second));
    }

    /// <summary>
    /// Whoever leads (here the lowest healthy node, or none on some asks), an event that wants the leader gets it when
    /// it is healthy, one that wants a follower never gets the leader while a healthy follower exists, the cluster's
    /// nodes never have more faults at once than the limit, and the schedule ends with every node healthy.
    /// </summary>
    [Fact]
    public void Events_that_want_the_leader_or_a_follower_get_one_and_the_limit_holds_on_the_cluster_nodes()
    {
        var cases = Arb.From(
            from nodes in Gen.Choose(3, 7)
            from limit in Gen.Choose(1, (nodes - 1) / 2)
            from seed in Gen.Choose(int.MinValue, int.MaxValue)
            from unknownEvery in Gen.Choose(2, 5)
            select (new NemesisScheduleOptions(nodes, limit, 120, Disks: true) { FreshNodes = 6 }, seed, unknownEvery));
        using var dir = new TestDirectory("nemesis-runner-roles");
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(50), Prop.ForAll(cases, c => Replay(c.Item1, c.seed, c.unknownEvery, dir).GetAwaiter().GetResult()));
    }

    [Fact]
    public async Task A_failed_event_names_itself_its_node_and_the_log_so_far()
    {
        using var dir = new TestDirectory("nemesis-runner-fail");
        var schedule = new NemesisEvent[] { new(0, NemesisAction.Pause, 1), new(1, NemesisAction.Kill, 2) };
        var targets = new FakeTargets(3, _ => null);
        var log = new NemesisEventLog(dir.File("nemesis.log"));
        var runner = new NemesisRunner(targets, log);
        await runner.ApplyAsync(schedule[0]);
        targets.NextFailure = new IOException("kill(-4242, 9) failed with errno 1");

        var failed = await Assert.ThrowsAsync<NemesisEventFailedException>(() => runner.ApplyAsync(schedule[1]));

        Assert.Same(schedule[1], failed.Event);
        Assert.Contains("#1 kill 2 (cluster node 2) failed: kill(-4242, 9) failed with errno 1", failed.Message);
        Assert.Contains("#0 pause 1 -> cluster node 1", failed.Message);
        Assert.IsType<IOException>(failed.InnerException);
        Assert.Contains("#1 FAILED: IOException", File.ReadAllText(log.Path));
    }

    private static async Task Replay(NemesisScheduleOptions options, int seed, int unknownEvery, TestDirectory dir)
    {
        int asked = 0;
        var targets = new FakeTargets(options.NodeCount, t => ++asked % unknownEvery == 0 ? null : LowestHealthy(t));
        var runner = new NemesisRunner(targets, new NemesisEventLog(dir.File($"{Guid.NewGuid():N}.log")));
        foreach (var e in NemesisScheduleGenerator.Generate(options, seed))
        {
            int before = targets.Applied.Count;
            // What a healthy trade can reach, judged on the cluster's nodes before the event.
            bool[] healthy = Enumerable.Range(0, options.NodeCount).Select(n => !targets.Faults.IsFaulted(n)).ToArray();
            await runner.ApplyAsync(e);
            Assert.Equal(before + 1, targets.Applied.Count);
            if (e.Wanted != WantedRole.Planned && targets.LastLeader is { } leader)
            {
                int target = TargetOf(targets.Applied[^1]);
                if (e.Wanted == WantedRole.Leader && healthy[leader])
                    Assert.True(target == leader, $"{e} hit {targets.Applied[^1]}; the leader was {leader}");
                if (e.Wanted == WantedRole.Follower && healthy.Where((h, n) => h && n != leader).Any())
                    Assert.True(target != leader, $"{e} hit the leader {leader}");
            }
            Assert.True(targets.Faults.FaultedCount <= options.MaxFaultedNodes, $"{targets.Faults.FaultedCount} cluster nodes faulted after {e}");
        }
        Assert.True(targets.Faults.IsHealed);
    }

    private static int? LowestHealthy(FakeTargets targets)
        => Enumerable.Range(0, targets.NodeCount).Where(n => !targets.Faults.IsFaulted(n)).Cast<int?>().FirstOrDefault();

    /// <summary>The node an applied operation hit: the first number in its text (a partition's first cut-off node).</summary>
    private static int TargetOf(string applied)
        => int.Parse(new string(applied.SkipWhile(c => !char.IsDigit(c)).TakeWhile(char.IsDigit).ToArray()), System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>The operation an event is, applied to its planned node.</summary>
    private static string Planned(NemesisEvent e) => e.Action switch
    {
        NemesisAction.Partition => $"partition [{string.Join(",", e.Nodes)}] from [{string.Join(",", Enumerable.Range(0, 5).Except(e.Nodes))}]",
        NemesisAction.OneWay => $"one-way {e.Node}->{e.Other}",
        NemesisAction.Delay => $"delay {e.Node}<->{e.Other} {e.Delay.TotalMilliseconds} ms",
        NemesisAction.Heal => "heal",
        _ => $"{e.Action.ToString().ToLowerInvariant()} {e.Node}",
    };
}
