using Cairn.Diagnostics;

namespace Cairn.Tests.Diagnostics;

/// <summary>Construction, recording, snapshot order and wrap-around, and the two collision cases of the ring.</summary>
public class IoStatsRingTests
{
    [Theory]
    [InlineData(16)]
    [InlineData(1024)]
    [InlineData(1 << 16)]
    public void Accepts_powers_of_two_from_16(int capacity)
    {
        var stats = new IoStats(capacity);
        Assert.Equal(capacity, stats.Capacity);
        Assert.Equal(0, stats.TotalRecorded);
        Assert.Equal(0, stats.Dropped);
        Assert.Empty(stats.Snapshot());
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-16)]
    [InlineData(8)]
    [InlineData(15)]
    [InlineData(17)]
    [InlineData(1000)]
    [InlineData(int.MaxValue)]
    [InlineData(int.MinValue)]
    public void Rejects_other_capacities(int capacity)
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new IoStats(capacity));
        Assert.Equal("capacity", error.ParamName);
    }

    [Fact]
    public void The_parameterless_constructor_uses_the_default_capacity()
        => Assert.Equal(IoStats.DefaultCapacity, new IoStats().Capacity);

    [Fact]
    public void Rejects_invalid_records_without_taking_a_sequence()
    {
        var stats = new IoStats(16);
        long t = IoTime.Origin;
        Assert.Throws<ArgumentOutOfRangeException>(() => stats.Record((IoOperationKind)0, t, t, 0, "f", 1, 1, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => stats.Record((IoOperationKind)4, t, t, 0, "f", 1, 1, 1));
        Assert.Throws<ArgumentNullException>(() => stats.Record(IoOperationKind.DataSync, t, t, 0, null!, 1, 1, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => stats.Record(IoOperationKind.DataSync, t, t - 1, 0, "f", 1, 1, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => stats.Record(IoOperationKind.DataFlush, t, t, -1, "f", 1, 1, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => stats.Record(IoOperationKind.JournalWrite, t, t, 0, "f", 1, 1, -1));
        Assert.Equal(0, stats.TotalRecorded);
        Assert.Empty(stats.Snapshot());
    }

    [Fact]
    public void A_snapshot_returns_every_field_as_recorded()
    {
        var stats = new IoStats(16);
        long start = IoTime.Origin + IoTime.Microseconds(5_000);
        stats.Record(IoOperationKind.DataFlush, start, start + IoTime.Microseconds(1_234), 81_920, "/env/data", 40, 47, 8, failed: true);
        stats.Record(IoOperationKind.DataSync, start + IoTime.Microseconds(1_500), start + IoTime.Microseconds(1_600), 0, "/env/data", 47, 47, 0);

        var operations = stats.Snapshot();

        Assert.Equal(2, operations.Length);
        var flush = operations[0];
        Assert.Equal(new IoOperation
        {
            Sequence = 0, Kind = IoOperationKind.DataFlush, StartUtc = stats.ToUtc(start), Duration = TimeSpan.FromMicroseconds(1_234),
            Bytes = 81_920, FilePath = "/env/data", FirstTransactionId = 40, LastTransactionId = 47, TransactionCount = 8, Failed = true,
            EnvironmentCount = 1,
        }, flush);
        Assert.Equal(DateTimeKind.Utc, flush.StartUtc.Kind);
        var sync = operations[1];
        Assert.Equal(1, sync.Sequence);
        Assert.Equal(TimeSpan.FromMicroseconds(100), sync.Duration);
        Assert.Equal(TimeSpan.FromMicroseconds(1_500), sync.StartUtc - flush.StartUtc);
        Assert.False(sync.Failed);
    }

    [Fact]
    public void Start_times_are_on_the_wall_clock()
    {
        var stats = new IoStats(16);
        DateTime before = DateTime.UtcNow;
        long start = System.Diagnostics.Stopwatch.GetTimestamp();
        stats.Record(IoOperationKind.DataSync, start, start, 0, "f", 1, 1, 0);
        DateTime after = DateTime.UtcNow;

        // One (UtcNow, timestamp) pair converts every record, so allow for the clocks' different
        // resolutions, not for drift: a generous bound that still catches a wrong unit or origin.
        var recorded = stats.Snapshot()[0].StartUtc;
        Assert.InRange(recorded, before - TimeSpan.FromMilliseconds(50), after + TimeSpan.FromMilliseconds(50));
    }

    [Fact]
    public void Holds_the_records_in_order_before_the_ring_fills()
    {
        var stats = new IoStats(16);
        for (int i = 0; i < 5; i++)
            RecordNumbered(stats, i);

        var operations = stats.Snapshot();

        Assert.Equal(5, operations.Length);
        for (int i = 0; i < 5; i++)
            AssertNumbered(stats, i, operations[i]);
    }

    [Theory]
    [InlineData(16)]
    [InlineData(64)]
    public void After_three_laps_holds_exactly_the_last_capacity_records_in_order(int capacity)
    {
        var stats = new IoStats(capacity);
        for (int i = 0; i < 3 * capacity; i++)
            RecordNumbered(stats, i);

        var operations = stats.Snapshot();

        Assert.Equal(3L * capacity, stats.TotalRecorded);
        Assert.Equal(0, stats.Dropped);
        Assert.Equal(capacity, operations.Length);
        for (int k = 0; k < capacity; k++)
            AssertNumbered(stats, 2 * capacity + k, operations[k]);
    }

    [Fact]
    public void Leaves_out_a_record_that_is_still_being_written_until_it_completes()
    {
        var stats = new IoStats(16);
        long stalled = stats.TakeSequence();
        Assert.True(stats.TryClaim(stalled));
        for (int i = 1; i <= 3; i++)
            RecordNumbered(stats, i);

        Assert.Equal([1L, 2, 3], stats.Snapshot().Select(o => o.Sequence));

        CompleteNumbered(stats, stalled);
        var operations = stats.Snapshot();
        Assert.Equal([0L, 1, 2, 3], operations.Select(o => o.Sequence));
        AssertNumbered(stats, 0, operations[0]);
    }

    [Fact]
    public void A_writer_that_laps_a_stalled_writer_drops_its_record()
    {
        var stats = new IoStats(16);
        long stalled = stats.TakeSequence();
        Assert.True(stats.TryClaim(stalled));

        // Sequence 16 lands on the stalled writer's slot and must not wait for it or overwrite it.
        for (int i = 1; i <= 16; i++)
            RecordNumbered(stats, i);

        Assert.Equal(17, stats.TotalRecorded);
        Assert.Equal(1, stats.Dropped);
        Assert.Equal(Enumerable.Range(1, 15).Select(i => (long)i), stats.Snapshot().Select(o => o.Sequence));

        // The stalled writer finishes a record that has left the window: still not reported. Its
        // slot is then free for the next lap (sequence 32 lands on it again).
        CompleteNumbered(stats, stalled);
        Assert.Equal(15, stats.Snapshot().Length);
        for (int i = 17; i <= 32; i++)
            RecordNumbered(stats, i);

        var operations = stats.Snapshot();
        Assert.Equal(1, stats.Dropped);
        Assert.Equal(16, operations.Length);
        for (int k = 0; k < 16; k++)
            AssertNumbered(stats, 17 + k, operations[k]);
    }

    [Fact]
    public void A_writer_more_than_a_lap_behind_drops_its_record_instead_of_replacing_a_newer_one()
    {
        var stats = new IoStats(16);
        long late = stats.TakeSequence();
        for (int i = 1; i <= 16; i++)
            RecordNumbered(stats, i);

        Assert.False(stats.TryClaim(late));
        Assert.Equal(1, stats.Dropped);
        var operations = stats.Snapshot();
        Assert.Equal(16, operations.Length);
        AssertNumbered(stats, 16, operations[^1]);
    }

    // Every field is derived from the sequence, so a record in the wrong place or with a field from
    // another record is caught.
    internal static void RecordNumbered(IoStats stats, long n)
    {
        var p = Numbered.For(n);
        stats.Record(p.Kind, p.Start, p.Start + p.Elapsed, p.Bytes, p.File, p.FirstTx, p.LastTx, p.TxCount, p.Failed);
    }

    private static void CompleteNumbered(IoStats stats, long n)
    {
        var p = Numbered.For(n);
        stats.Complete(n, p.Kind, p.Start, p.Elapsed, p.Bytes, p.File, p.FirstTx, p.LastTx, p.TxCount, p.Failed);
    }

    internal static void AssertNumbered(IoStats stats, long n, IoOperation operation)
    {
        var p = Numbered.For(n);
        Assert.Equal(
            new IoOperation
            {
                Sequence = n, Kind = p.Kind, StartUtc = stats.ToUtc(p.Start), Duration = TimeSpan.FromMicroseconds(p.ElapsedMicroseconds),
                Bytes = p.Bytes, FilePath = p.File, FirstTransactionId = p.FirstTx, LastTransactionId = p.LastTx,
                TransactionCount = p.TxCount, Failed = p.Failed, EnvironmentCount = 1,
            },
            operation);
    }

    private readonly record struct Numbered(IoOperationKind Kind, long Start, long Elapsed, long ElapsedMicroseconds, long Bytes, string File,
                                            long FirstTx, long LastTx, int TxCount, bool Failed)
    {
        private static readonly string[] Files = ["/env/journal", "/env/data"];

        public static Numbered For(long n) => new(
            Kind: (IoOperationKind)(1 + n % 3),
            Start: IoTime.Origin + IoTime.Microseconds(1_000 * n),
            Elapsed: IoTime.Microseconds(10 + n),
            ElapsedMicroseconds: 10 + n,
            Bytes: n % 3 == 2 ? 0 : 4096 * (n + 1),
            File: Files[n % 2],
            FirstTx: 100 + n,
            LastTx: 100 + n + n % 4,
            TxCount: (int)(1 + n % 4),
            Failed: n % 7 == 3);
    }
}
