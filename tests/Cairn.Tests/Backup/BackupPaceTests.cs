using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// <see cref="BackupOptions.MaxBytesPerSecond"/> on a clock that moves only when the copy waits: after every progress
/// report the copy has waited exactly as long as its bytes take at the rate (never less, never more), whatever the
/// machine's speed.
/// </summary>
public class BackupPaceTests
{
    private const long Rate = 1 << 20;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void The_copy_waits_until_its_bytes_are_due_at_the_rate(bool compact)
    {
        using var dir = new TestDirectory("backup-pace");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 8000, 500); // about 4 MiB: several 1 MiB pieces
        env.Checkpoint();
        var clock = new WaitJumpingClock();
        var reports = new List<(long Done, TimeSpan Waited)>();
        var options = new BackupOptions
        {
            Compact = compact,
            MaxBytesPerSecond = Rate,
            Clock = clock,
            Progress = new InlineProgress(p => reports.Add((p.BytesDone, clock.Waited))),
        };

        var result = env.Backup(Path.Combine(dir.Path, "copy"), options, CancellationToken.None);

        Assert.True(reports.Count >= 4, $"{reports.Count} reports: too few pieces for the pace to show");
        Assert.Equal(result.Bytes, reports[^1].Done);
        foreach (var (done, waited) in reports)
        {
            var due = TimeSpan.FromSeconds((double)done / Rate);
            // Waits are whole milliseconds, rounded up: never early, less than a millisecond late.
            Assert.InRange(waited, due - TimeSpan.FromTicks(1), due + TimeSpan.FromMilliseconds(1));
        }
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(Path.Combine(dir.Path, "copy")));
    }

    [Fact]
    public void Without_a_rate_the_copy_never_waits()
    {
        using var dir = new TestDirectory("backup-unpaced");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env")));
        BackupContent.Fill(env, "a", 0, 4000, 500);
        var clock = new WaitJumpingClock();

        env.Backup(Path.Combine(dir.Path, "copy"), new BackupOptions { Clock = clock }, CancellationToken.None);

        Assert.Equal(TimeSpan.Zero, clock.Waited);
    }

    [Theory]
    [InlineData(0L)]
    [InlineData(-1L)]
    public void A_rate_of_zero_or_less_is_refused_where_it_is_set(long rate)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new BackupOptions { MaxBytesPerSecond = rate });
        Assert.Equal(nameof(BackupOptions.MaxBytesPerSecond), e.ParamName);
    }

    /// <summary>
    /// A clock that stands still except when someone waits on it: each timer moves it by its due time and fires at
    /// once (on the pool), so a wait takes no real time and the clock shows exactly what was waited.
    /// </summary>
    private sealed class WaitJumpingClock : TimeProvider
    {
        private long _ticks;

        public TimeSpan Waited => TimeSpan.FromTicks(Volatile.Read(ref _ticks));

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => Volatile.Read(ref _ticks);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            Interlocked.Add(ref _ticks, dueTime.Ticks);
            ThreadPool.UnsafeQueueUserWorkItem(_ => callback(state), null);
            return new FiredTimer();
        }

        private sealed class FiredTimer : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period) => false;

            public void Dispose()
            {
            }

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }
}
