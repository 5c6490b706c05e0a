using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Tests.Diagnostics;

/// <summary>
/// Recording is on the commit path: once warm it must allocate nothing, on either of its paths.
/// Measured in a test child of its own (<see cref="IsolatedAllocation"/>).
/// </summary>
public class IoStatsAllocationTests
{
    private const string JournalPath = "/env/journal";
    private const string DataPath = "/env/data";

    [Fact]
    public void Record_allocates_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(RecordProbe));

    [Fact]
    public void Dropping_a_record_allocates_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(DropProbe));

    internal static long RecordProbe()
    {
        var stats = new IoStats(1024);
        RecordMany(stats, 10_000); // warm-up: tiered compilation, first touch of every slot

        int attempts = 0;
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            RecordMany(stats, 200_000);
            attempts++;
        });

        Assert.Equal(10_000 + attempts * 200_000L, stats.TotalRecorded);
        return allocated;
    }

    internal static long DropProbe()
    {
        var stats = new IoStats(16);
        long stalled = stats.TakeSequence();
        Assert.True(stats.TryClaim(stalled));
        RecordMany(stats, 10_000);
        long droppedAfterWarmUp = stats.Dropped;

        int attempts = 0;
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            RecordMany(stats, 160_000);
            attempts++;
        });

        // One in every 16 records lands on the stalled slot.
        Assert.Equal(10_000 / 16, droppedAfterWarmUp);
        Assert.Equal(droppedAfterWarmUp + attempts * (160_000 / 16), stats.Dropped);
        return allocated;
    }

    private static void RecordMany(IoStats stats, int count)
    {
        for (int i = 0; i < count; i++)
        {
            long start = Stopwatch.GetTimestamp();
            switch (i % 3)
            {
                case 0:
                    stats.Record(IoOperationKind.JournalWrite, start, Stopwatch.GetTimestamp(), 4096 + i, JournalPath, i, i, 1);
                    break;
                case 1:
                    stats.Record(IoOperationKind.DataFlush, start, Stopwatch.GetTimestamp(), 8192L * i, DataPath, i - 10, i, 11, failed: i % 5 == 0);
                    break;
                default:
                    stats.Record(IoOperationKind.DataSync, start, Stopwatch.GetTimestamp(), 0, DataPath, i, i, 0);
                    break;
            }
        }
    }
}
