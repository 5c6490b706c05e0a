namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>Hand-written histories whose verdict is known, checked with the key-value register model.</summary>
public class KnownHistoriesTests
{
    private static CheckResult Check(HistoryBuilder history) => LinearizabilityChecker.Check(history.Build(), KeyValueRegisterModel.Instance);

    private static void AssertLinearizable(HistoryBuilder history)
    {
        var result = Check(history);
        Assert.True(result.Verdict == Verdict.Linearizable, result.Explain());
    }

    private static CheckResult AssertNotLinearizable(HistoryBuilder history)
    {
        var result = Check(history);
        Assert.True(result.Verdict == Verdict.NotLinearizable, result.Explain());
        return result;
    }

    [Fact]
    public void An_empty_history_is_linearizable() => AssertLinearizable(new HistoryBuilder());

    [Fact]
    public void Sequential_writes_and_reads_are_linearizable() => AssertLinearizable(new HistoryBuilder()
        .Get(1, "x", null, 0, 10)
        .Put(1, "x", "a", 20, 30)
        .Get(2, "x", "a", 40, 50)
        .Delete(1, "x", 60, 70)
        .Get(2, "x", null, 80, 90));

    [Theory]
    [InlineData("a")]
    [InlineData("b")]
    public void After_two_overlapping_writes_a_read_sees_either(string seen) => AssertLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 50)
        .Put(2, "x", "b", 10, 60)
        .Get(3, "x", seen, 70, 80)
        .Get(1, "x", seen, 90, 100));

    [Theory]
    [InlineData("a")]
    [InlineData("b")]
    public void A_read_overlapping_a_write_sees_the_old_or_the_new_value(string seen) => AssertLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 10)
        .Put(1, "x", "b", 20, 50)
        .Get(2, "x", seen, 30, 40));

    [Fact]
    public void Reads_during_overlapping_writes_may_see_both_in_one_order() => AssertLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 100)
        .Put(2, "x", "b", 10, 90)
        .Get(3, "x", "b", 20, 30)
        .Get(3, "x", "a", 40, 50)
        .Get(4, "x", "b", 15, 25)
        .Get(3, "x", "a", 110, 120));

    [Fact]
    public void Compare_and_set_swaps_only_on_the_expected_value() => AssertLinearizable(new HistoryBuilder()
        .Cas(1, "x", null, "a", swapped: true, 0, 10)
        .Cas(2, "x", null, "b", swapped: false, 20, 30)
        .Cas(1, "x", "a", "c", swapped: true, 40, 50)
        .Cas(2, "x", "a", "d", swapped: false, 60, 70)
        .Get(3, "x", "c", 80, 90));

    [Fact]
    public void An_unknown_write_may_take_effect_after_its_client_gave_up() => AssertLinearizable(new HistoryBuilder()
        .PutUnknown(1, "x", "a", 0, gaveUp: 10)
        .Get(2, "x", null, 100, 110)
        .Get(2, "x", "a", 200, 210)
        .Get(3, "x", "a", 300, 310));

    [Fact]
    public void An_unknown_write_may_never_take_effect() => AssertLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 5)
        .PutUnknown(1, "x", "b", 10, gaveUp: null)
        .Get(2, "x", "a", 100, 110)
        .Get(2, "x", "a", 200, 210));

    [Fact]
    public void A_failed_write_that_nobody_sees_is_linearizable_and_left_out()
    {
        var result = Check(new HistoryBuilder()
            .PutFailed(1, "x", "a", 0, 10)
            .Get(2, "x", null, 20, 30));
        Assert.Equal(Verdict.Linearizable, result.Verdict);
        Assert.Equal(1, result.LeftOut);
    }

    [Fact]
    public void A_stale_read_after_a_completed_write_is_not_linearizable_and_the_explanation_names_it()
    {
        var result = AssertNotLinearizable(new HistoryBuilder()
            .Put(1, "x", "a", 0, 10)
            .Put(1, "x", "b", 20, 30)
            .Get(2, "x", "a", 40, 50));
        var partition = Assert.Single(result.Partitions);
        Assert.Equal("\"x\"", partition.Name);
        Assert.Equal([0, 1], partition.LongestPrefix.Select(p => p.Operation.Id));
        Assert.Equal("\"b\"", partition.LongestPrefix[^1].StateAfter);
        var unplaced = Assert.Single(partition.Unplaced);
        Assert.Equal(2, unplaced.Operation.Id);
        Assert.Equal("impossible in state \"b\"", unplaced.Reason);
        string explanation = result.Explain();
        Assert.StartsWith("NOT linearizable", explanation);
        Assert.Contains("op 2 (client 2) get(\"x\") -> \"a\"  [40.000, 50.000] ms: impossible in state \"b\"", explanation);
    }

    [Fact]
    public void A_read_of_a_value_never_written_is_not_linearizable() => AssertNotLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 10)
        .Get(2, "x", "z", 5, 20));

    [Fact]
    public void A_read_of_absent_after_a_completed_write_is_not_linearizable() => AssertNotLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 10)
        .Get(2, "x", null, 20, 30));

    [Fact]
    public void Two_readers_that_see_overlapping_writes_in_opposite_orders_are_not_linearizable() => AssertNotLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 100)
        .Put(2, "x", "b", 0, 100)
        .Get(3, "x", "a", 10, 20)
        .Get(3, "x", "b", 30, 40)
        .Get(4, "x", "b", 10, 20)
        .Get(4, "x", "a", 30, 40));

    [Fact]
    public void A_failed_write_whose_value_is_read_is_not_linearizable()
    {
        var result = AssertNotLinearizable(new HistoryBuilder()
            .PutFailed(1, "x", "a", 0, 10)
            .Get(2, "x", "a", 20, 30));
        Assert.Equal("impossible in state absent", Assert.Single(Assert.Single(result.Partitions).Unplaced).Reason);
    }

    [Fact]
    public void An_unknown_write_read_before_its_invoke_is_not_linearizable() => AssertNotLinearizable(new HistoryBuilder()
        .Get(2, "x", "a", 0, 10)
        .PutUnknown(1, "x", "a", 20, gaveUp: 30));

    [Fact]
    public void A_compare_and_set_that_swapped_on_the_wrong_value_is_not_linearizable() => AssertNotLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 10)
        .Cas(2, "x", "b", "c", swapped: true, 20, 30));

    [Fact]
    public void A_compare_and_set_that_did_not_swap_on_the_expected_value_is_not_linearizable() => AssertNotLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 10)
        .Cas(2, "x", "a", "c", swapped: false, 20, 30));

    [Fact]
    public void Only_the_key_that_fails_is_reported()
    {
        var result = AssertNotLinearizable(new HistoryBuilder()
            .Put(1, "x", "a", 0, 10)
            .Put(2, "y", "b", 0, 10)
            .Get(1, "x", "a", 20, 30)
            .Put(2, "y", "c", 20, 30)
            .Get(3, "y", "b", 40, 50));
        Assert.Equal(2, result.Partitions.Count);
        var failing = Assert.Single(result.Partitions, p => p.Verdict == Verdict.NotLinearizable);
        Assert.Equal("\"y\"", failing.Name);
    }

    [Fact]
    public void Equal_times_count_as_overlapping()
    {
        // The read is invoked at the instant the write returns: the two may have happened in either order.
        AssertLinearizable(new HistoryBuilder()
            .Put(1, "x", "a", 0, 10)
            .Get(2, "x", null, 10, 20));
    }

    [Fact]
    public void An_unobserved_unknown_write_does_not_hide_a_stale_read() => AssertNotLinearizable(new HistoryBuilder()
        .Put(1, "x", "a", 0, 10)
        .PutUnknown(2, "x", "b", 5, gaveUp: 15)
        .Put(1, "x", "c", 20, 30)
        .Get(3, "x", "a", 40, 50));

    /// <summary>
    /// Forty unknown writes pending at once that nobody read: each could take effect anywhere, or never. Left out
    /// (they cannot change a verdict), the key checks in a few steps; searched, they are 2^40 subsets.
    /// </summary>
    [Fact]
    public void Many_pending_unknown_writes_that_nobody_read_are_left_out()
    {
        var history = new HistoryBuilder();
        for (int i = 0; i < 40; i++)
            history.PutUnknown(i, "x", $"lost{i}", i, gaveUp: 100 + i);
        for (int i = 0; i < 20; i++)
            history.Put(100, "x", $"v{i}", 200 + 20 * i, 205 + 20 * i).Get(101, "x", $"v{i}", 210 + 20 * i, 215 + 20 * i);
        var result = LinearizabilityChecker.Check(history.Build(), KeyValueRegisterModel.Instance, new CheckLimits(MaxStepsPerPartition: 1_000));
        Assert.True(result.Verdict == Verdict.Linearizable, result.Explain());
        Assert.Equal(40, result.LeftOut);
    }

    [Fact]
    public void Unknown_writes_that_were_read_are_kept_and_each_takes_effect_once()
    {
        var result = Check(new HistoryBuilder()
            .PutUnknown(1, "x", "a", 0, gaveUp: 10)
            .PutUnknown(2, "x", "b", 0, gaveUp: 10)
            .Get(3, "x", "b", 20, 30)
            .Get(3, "x", "a", 40, 50)
            .Get(4, "x", "b", 60, 70));
        Assert.True(result.Verdict == Verdict.NotLinearizable, result.Explain());
        Assert.Equal(0, result.LeftOut);
    }
}
