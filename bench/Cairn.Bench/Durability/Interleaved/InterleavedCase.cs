using System.Diagnostics;
using Cairn.Bench.Durability.Concurrent;

namespace Cairn.Bench.Durability.Interleaved;

/// <summary>One store open with its callers for <see cref="InterleavedConcurrentRun"/>, and what its measured rounds took.</summary>
internal sealed class InterleavedCase : IDisposable
{
    private readonly IDurableStore _store;
    private readonly IDurableLogCounter? _logCounter;
    private readonly List<double> _roundRates = [];
    private readonly string _directory;
    private long _ticks;

    private InterleavedCase(string name, int callerCount, IDurableStore store, ICommitCallers callers, string directory)
    {
        Name = name;
        CallerCount = callerCount;
        _store = store;
        _logCounter = store as IDurableLogCounter;
        Callers = callers;
        _directory = directory;
        LogWrites = _logCounter is null ? -1 : 0;
    }

    public string Name { get; }

    public int CallerCount { get; }

    public ICommitCallers Callers { get; }

    public long MeasuredPuts { get; private set; }

    /// <summary>Durable log writes in the measured rounds; -1 for a store that does not count them.</summary>
    public long LogWrites { get; private set; }

    /// <summary>Bytes the whole process allocated during the measured rounds (only this case runs then).</summary>
    public long AllocatedBytes { get; private set; }

    /// <summary>Context switches of the whole process during the measured rounds; -1 where they cannot be counted.</summary>
    public long ContextSwitches { get; private set; }

    public double TotalRate => MeasuredPuts / (_ticks / (double)Stopwatch.Frequency);

    public double MedianRate
    {
        get
        {
            var sorted = _roundRates.Order().ToArray();
            return sorted.Length == 0 ? double.NaN : sorted[sorted.Length / 2];
        }
    }

    public static InterleavedCase Open(string name, int callerCount, int putsPerCaller)
    {
        var directory = BenchScratch.Directory($"interleaved-{name}-{callerCount}");
        var store = DurableStores.Create(name);
        try
        {
            store.Open(directory);
            return new InterleavedCase(name, callerCount, store, CommitCallersFor.Create(name, store, callerCount, putsPerCaller), directory);
        }
        catch
        {
            store.Dispose();
            Directory.Delete(directory, recursive: true);
            throw;
        }
    }

    public void RunRound(bool measured)
    {
        _logCounter?.LogWritesSinceLastRead();
        long allocatedBefore = GC.GetTotalAllocatedBytes(precise: false);
        long switchesBefore = Interleaved.ContextSwitches.Total();
        long start = Stopwatch.GetTimestamp();
        Callers.RunRound(record: measured);
        long elapsed = Stopwatch.GetTimestamp() - start;
        long switches = switchesBefore < 0 ? -1 : Interleaved.ContextSwitches.Total() - switchesBefore;
        long allocated = GC.GetTotalAllocatedBytes(precise: false) - allocatedBefore;
        long writes = _logCounter?.LogWritesSinceLastRead() ?? 0;
        if (!measured)
            return;
        long puts = Callers.RecordedPuts - MeasuredPuts;
        MeasuredPuts = Callers.RecordedPuts;
        _ticks += elapsed;
        AllocatedBytes += allocated;
        ContextSwitches = switches < 0 || ContextSwitches < 0 ? -1 : ContextSwitches + switches;
        _roundRates.Add(puts / (elapsed / (double)Stopwatch.Frequency));
        if (LogWrites >= 0)
            LogWrites += writes;
    }

    public void Dispose()
    {
        Callers.Dispose();
        _store.Dispose();
        Directory.Delete(_directory, recursive: true);
    }
}
