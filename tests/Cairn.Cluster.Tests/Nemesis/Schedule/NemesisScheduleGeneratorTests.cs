using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Cluster.Tests.Nemesis.Schedule;

public sealed class NemesisScheduleGeneratorTests
{
    private static Arbitrary<(NemesisScheduleOptions Options, int Seed)> Schedules()
        => Arb.From(
            from nodes in Gen.Choose(2, 7)
            from limit in Gen.Choose(1, nodes)
            from events in Gen.Choose(0, 300)
            from disks in Gen.Elements(true, false)
            from fresh in Gen.Choose(0, 20)
            from seed in Gen.Choose(int.MinValue, int.MaxValue)
            select (new NemesisScheduleOptions(nodes, limit, events, disks) { FreshNodes = fresh }, seed));

    private static void ForAll(Action<(NemesisScheduleOptions Options, int Seed)> property)
        => Check.One(Config.QuickThrowOnFailure.WithMaxTest(200), Prop.ForAll(Schedules(), property));

    [Fact]
    public void The_same_seed_gives_the_same_schedule()
        => ForAll(c => Assert.Equal(Text(NemesisScheduleGenerator.Generate(c.Options, c.Seed)), Text(NemesisScheduleGenerator.Generate(c.Options, c.Seed))));

    private static string Text(IReadOnlyList<NemesisEvent> schedule) => string.Join('\n', schedule);

    [Fact]
    public void A_schedule_keeps_to_the_fault_limit_makes_only_possible_moves_and_ends_healed()
        => ForAll(c => ScheduleChecks.AssertValid(NemesisScheduleGenerator.Generate(c.Options, c.Seed), c.Options));

    [Fact]
    public void A_long_schedule_uses_every_kind_of_event()
    {
        // One schedule with a fixed membership, one with fresh nodes to add.
        var schedule = NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(5, 2, 400, Disks: true), seed: 28)
            .Concat(NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(5, 2, 400, Disks: true) { FreshNodes = 30 }, seed: 28)).ToList();

        Assert.Equal(Enum.GetValues<NemesisAction>().Order(), schedule.Select(e => e.Action).Distinct().Order());
        Assert.Contains(schedule, e => e.Action == NemesisAction.Kill && e.Wanted == WantedRole.Leader);
        Assert.Contains(schedule, e => e.Action == NemesisAction.Kill && e.Wanted == WantedRole.Follower);
        Assert.Contains(schedule, e => e.Action == NemesisAction.Pause && e.Wanted == WantedRole.Leader);
        Assert.Contains(schedule, e => e.Action == NemesisAction.Partition && e.Wanted == WantedRole.Leader); // leader isolated
        Assert.Contains(schedule, e => e.Action == NemesisAction.Remove && e.Wanted == WantedRole.Leader);
        Assert.Contains(schedule, e => e.Action == NemesisAction.Remove && e.Wanted == WantedRole.Follower);
        Assert.Contains(schedule, e => e.Action == NemesisAction.Partition && e.Nodes.Count == 2); // a minority of two
        Assert.Equal(new NemesisScheduleOptions(5, 2, 400, true).Delays.Order(), schedule.Where(e => e.Action == NemesisAction.Delay).Select(e => e.Delay).Distinct().Order());
    }

    [Fact]
    public void Without_disks_a_schedule_never_touches_one()
    {
        var schedule = NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(3, 1, 400, Disks: false), seed: 7);
        Assert.DoesNotContain(schedule, e => e.Action is NemesisAction.DiskFull or NemesisAction.DiskFree);
    }

    [Fact]
    public void Membership_changes_use_no_more_fresh_nodes_than_given_and_none_without()
    {
        var fixedMembers = NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(3, 1, 400, Disks: false), seed: 7);
        Assert.DoesNotContain(fixedMembers, e => e.Action is NemesisAction.Remove or NemesisAction.Add or NemesisAction.Replace);

        var options = new NemesisScheduleOptions(3, 1, 400, Disks: false) { FreshNodes = 4 };
        var changing = NemesisScheduleGenerator.Generate(options, seed: 7);
        Assert.Equal(4, changing.Count(e => e.Action is NemesisAction.Add or NemesisAction.Replace));
        ScheduleChecks.AssertValid(changing, options);
    }

    [Theory]
    [InlineData(1, 1, 10)]
    [InlineData(3, 0, 10)]
    [InlineData(3, 4, 10)]
    [InlineData(3, 1, -1)]
    public void Impossible_options_are_refused(int nodes, int limit, int events)
        => Assert.Throws<ArgumentOutOfRangeException>(() => NemesisScheduleGenerator.Generate(new NemesisScheduleOptions(nodes, limit, events, false), 1));
}
