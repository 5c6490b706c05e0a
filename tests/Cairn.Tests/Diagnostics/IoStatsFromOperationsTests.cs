using Cairn.Diagnostics;

namespace Cairn.Tests.Diagnostics;

/// <summary><see cref="IoStats.FromOperations"/>: saved operations made a ring again, exactly, and anything a ring could not hold refused.</summary>
public class IoStatsFromOperationsTests
{
    [Fact]
    public void Holds_the_operations_and_counters_it_was_given()
    {
        var original = new IoStats(16);
        for (int n = 0; n < 20; n++)
            original.Record(IoOperationKind.JournalWrite, IoTime.Origin + IoTime.Microseconds(n * 100), IoTime.Origin + IoTime.Microseconds(n * 100 + 7 + n),
                            4096 * (n + 1), "/data/0000000000000000001.journal", n, n, 1, failed: n == 5, environmentCount: 1 + n % 3);
        var operations = original.Snapshot();

        var restored = IoStats.FromOperations(original.Capacity, original.TotalRecorded, original.Dropped, operations);

        Assert.Equal(operations, restored.Snapshot());
        Assert.Equal((16, 20L, 0L), (restored.Capacity, restored.TotalRecorded, restored.Dropped));
    }

    [Fact]
    public void Refuses_sequences_out_of_order_or_outside_the_window_and_undefined_kinds()
    {
        var at = new DateTime(2026, 11, 27, 12, 0, 0, DateTimeKind.Utc);
        IoOperation Operation(long sequence, IoOperationKind kind = IoOperationKind.DataSync)
            => new()
            {
                Sequence = sequence, Kind = kind, StartUtc = at, Duration = TimeSpan.FromMilliseconds(1), Bytes = 0, FilePath = "/data/cairn.data",
                FirstTransactionId = 1, LastTransactionId = 1, TransactionCount = 0, Failed = false, EnvironmentCount = 1,
            };

        Assert.Throws<ArgumentOutOfRangeException>(() => IoStats.FromOperations(16, 40, 0, [Operation(30), Operation(29)]));
        Assert.Throws<ArgumentOutOfRangeException>(() => IoStats.FromOperations(16, 40, 0, [Operation(23)]));
        Assert.Throws<ArgumentOutOfRangeException>(() => IoStats.FromOperations(16, 40, 0, [Operation(40)]));
        Assert.Throws<ArgumentOutOfRangeException>(() => IoStats.FromOperations(16, 40, 0, [Operation(30, (IoOperationKind)9)]));
        Assert.Throws<ArgumentOutOfRangeException>(() => IoStats.FromOperations(12, 40, 0, []));
        Assert.Single(IoStats.FromOperations(16, 40, 0, [Operation(24)]).Snapshot());
    }
}
