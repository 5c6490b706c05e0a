using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using Cairn.Diagnostics;

namespace Cairn.Bench.Diagnostics;

/// <summary>
/// The cost the commit path and the flusher pay per recorded I/O operation
/// (<see cref="IoStats.Record"/>), which must stay tens of nanoseconds and allocate nothing. One
/// operation is one record, so Mean is per record. "+ 2 timestamps" adds the two
/// <see cref="Stopwatch.GetTimestamp"/> calls a caller makes around the I/O, the whole price of
/// measuring it. With two threads (the benchmark thread plus one long-lived worker recording into
/// the same ring) Mean is wall time over the records of both, so it reads as the combined rate;
/// each thread's own cost per record is twice that.
/// </summary>
[MemoryDiagnoser]
[SimpleJob(launchCount: 1, warmupCount: 3, iterationCount: 10)]
public class IoStatsBenchmarks
{
    /// <summary>Records per invocation, all threads together.</summary>
    public const int RecordsPerInvoke = 1 << 16;

    private const string JournalPath = "/var/lib/cairn/env/journal";

    private IoStats _stats = null!;
    private IoStatsRecordWorker _worker = null!;

    [GlobalSetup]
    public void Setup()
    {
        _stats = new IoStats(IoStats.DefaultCapacity);
        _worker = new IoStatsRecordWorker(_stats);
    }

    [GlobalCleanup]
    public void Cleanup() => _worker.Dispose();

    [Benchmark(Baseline = true, Description = "Record, 1 thread", OperationsPerInvoke = RecordsPerInvoke)]
    public long RecordOneThread() => RecordMany(_stats, 0, RecordsPerInvoke);

    [Benchmark(Description = "Record + 2 timestamps, 1 thread", OperationsPerInvoke = RecordsPerInvoke)]
    public long RecordTimedOneThread()
    {
        for (int i = 0; i < RecordsPerInvoke; i++)
        {
            long start = Stopwatch.GetTimestamp();
            _stats.Record(IoOperationKind.JournalWrite, start, Stopwatch.GetTimestamp(), 4096, JournalPath, i, i, 1);
        }
        return _stats.TotalRecorded;
    }

    [Benchmark(Description = "Record, 2 threads", OperationsPerInvoke = RecordsPerInvoke)]
    public long RecordTwoThreads()
    {
        const int perThread = RecordsPerInvoke / 2;
        _worker.Start(perThread);
        RecordMany(_stats, 0, perThread);
        _worker.Finish();
        return _stats.TotalRecorded;
    }

    /// <summary>The loop both threads run: journal-write records with distinct transactions and fixed 20 µs durations.</summary>
    public static long RecordMany(IoStats stats, long firstTransaction, int count)
    {
        long duration = Stopwatch.Frequency / 50_000;
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < count; i++)
        {
            long transaction = firstTransaction + i;
            stats.Record(IoOperationKind.JournalWrite, start, start + duration, 4096, JournalPath, transaction, transaction, 1);
            start += duration;
        }
        return stats.TotalRecorded;
    }
}
