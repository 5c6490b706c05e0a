using System.Diagnostics;
using Cairn.Diagnostics;

namespace Cairn.Tests.Diagnostics;

/// <summary>Recording is on the commit path: once warm it must allocate nothing, on either of its paths.</summary>
public class IoStatsAllocationTests
{
    private const string JournalPath = "/env/journal";
    private const string DataPath = "/env/data";

    [Fact]
    public void Record_allocates_nothing()
    {
        var stats = new IoStats(1024);
        RecordMany(stats, 10_000); // warm-up: tiered compilation, first touch of every slot

        long before = GC.GetAllocatedBytesForCurrentThread();
        RecordMany(stats, 200_000);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        Assert.Equal(210_000, stats.TotalRecorded);
    }

    [Fact]
    public void Dropping_a_record_allocates_nothing()
    {
        var stats = new IoStats(16);
        long stalled = stats.TakeSequence();
        Assert.True(stats.TryClaim(stalled));
        RecordMany(stats, 10_000);
        long droppedAfterWarmUp = stats.Dropped;

        long before = GC.GetAllocatedBytesForCurrentThread();
        RecordMany(stats, 160_000);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        // One in every 16 records lands on the stalled slot.
        Assert.Equal(10_000 / 16, droppedAfterWarmUp);
        Assert.Equal(droppedAfterWarmUp + 160_000 / 16, stats.Dropped);
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
