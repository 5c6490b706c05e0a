using Cairn.Flushing;

namespace Cairn.Tests.Flushing;

/// <summary>
/// The flush delay weighed against what a flush writes (<see cref="AgeFlushRule"/>), fed ages and sizes directly:
/// flush delay 5 s, sync interval 30 s (the longest wait), small flushes up to 16 MiB.
/// </summary>
public sealed class AgeFlushRuleTests
{
    private const long MiB = 1 << 20;
    private static readonly FlushSettings s_settings = new(TimeSpan.FromSeconds(5), 1L << 30, TimeSpan.FromSeconds(30), 256 * MiB);

    [Fact]
    public void Before_the_flush_delay_nothing_is_due_however_small_or_worth_it_the_flush()
    {
        Assert.False(AgeFlushRule.IsDue(s_settings, Seconds(4.9), Seconds(60), 4096, 1L << 40));
    }

    [Theory]
    [InlineData(16, 0)] // small: at most 16 MiB to write
    [InlineData(350, 350)] // the journal since the last flush covers what it writes
    [InlineData(350, 900)]
    public void Past_the_flush_delay_a_small_or_a_covered_flush_is_due_while_writers_commit(long toWriteMiB, long journalMiB)
    {
        Assert.True(AgeFlushRule.IsDue(s_settings, Seconds(5), Seconds(0.01), toWriteMiB * MiB, journalMiB * MiB));
    }

    [Fact]
    public void A_large_flush_the_journal_does_not_cover_waits_while_writers_commit()
    {
        // The 2 M-key random fill's shape: every leaf dirty (350 MiB) after 5 s of journal (about 40 MiB).
        Assert.False(AgeFlushRule.IsDue(s_settings, Seconds(5), Seconds(0.01), 350 * MiB, 40 * MiB));
        Assert.False(AgeFlushRule.IsDue(s_settings, Seconds(29.9), Seconds(4.9), 16 * MiB + 1, 16 * MiB));
    }

    [Fact]
    public void A_large_flush_goes_once_the_writers_are_quiet_for_a_flush_delay()
    {
        Assert.True(AgeFlushRule.IsDue(s_settings, Seconds(7), Seconds(5), 350 * MiB, 40 * MiB));
        // No commit since the open (work recovery replayed).
        Assert.True(AgeFlushRule.IsDue(s_settings, Seconds(5), TimeSpan.MaxValue, 350 * MiB, 0));
    }

    [Fact]
    public void No_flush_waits_longer_than_the_sync_interval_or_the_flush_delay_if_that_is_longer()
    {
        Assert.True(AgeFlushRule.IsDue(s_settings, Seconds(30), Seconds(0.01), 350 * MiB, 40 * MiB));
        var longDelay = s_settings with { MaxFlushDelay = TimeSpan.FromSeconds(60) };
        Assert.Equal(Seconds(60), AgeFlushRule.LongestWait(longDelay));
        Assert.True(AgeFlushRule.IsDue(longDelay, Seconds(60), Seconds(0.01), 350 * MiB, 40 * MiB));
    }

    [Fact]
    public void A_waiting_flush_is_looked_at_again_when_the_writers_would_be_quiet_or_the_longest_wait_ends()
    {
        Assert.Equal(Seconds(4), AgeFlushRule.UntilNextLook(s_settings, Seconds(6), Seconds(1)));
        Assert.Equal(Seconds(1), AgeFlushRule.UntilNextLook(s_settings, Seconds(29), Seconds(0.5)));
        Assert.Equal(TimeSpan.Zero, AgeFlushRule.UntilNextLook(s_settings, Seconds(6), TimeSpan.MaxValue));
    }

    private static TimeSpan Seconds(double seconds) => TimeSpan.FromSeconds(seconds);
}
