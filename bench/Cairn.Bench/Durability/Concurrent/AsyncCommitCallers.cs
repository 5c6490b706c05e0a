using System.Diagnostics;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Durability.Concurrent;

/// <summary>
/// Asynchronous callers for a store with an asynchronous API (<see cref="IAsyncDurableStore"/>): a
/// round starts one task per caller on the thread pool, each awaiting its puts one after another
/// (same keys and shares as <see cref="CommitCallers"/>), and ends when all have finished. Latencies
/// go into per-caller arrays allocated up front. A round allocates its tasks (one per caller, not
/// per put).
/// </summary>
public sealed class AsyncCommitCallers : ICommitCallers
{
    private readonly int _callerCount;
    private readonly int _putsPerCaller;
    private readonly IAsyncDurableWriter[] _writers;
    private readonly long[][] _latencies;
    private readonly ulong[] _nextKey;
    private readonly Task[] _tasks;
    private int _recordedRounds;

    public AsyncCommitCallers(IAsyncDurableStore store, int callerCount, int putsPerCaller, ulong firstKey = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(callerCount, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(putsPerCaller, 1);
        _callerCount = callerCount;
        _putsPerCaller = putsPerCaller;
        _writers = new IAsyncDurableWriter[callerCount];
        _latencies = new long[callerCount][];
        _nextKey = new ulong[callerCount];
        _tasks = new Task[callerCount];
        for (var c = 0; c < callerCount; c++)
        {
            _writers[c] = store.CreateAsyncWriter();
            _latencies[c] = new long[CommitCallers.MaxRecordedRounds * putsPerCaller];
            _nextKey[c] = firstKey + (ulong)c;
        }
    }

    public int RecordedRounds => _recordedRounds;

    public long RecordedPuts => (long)_recordedRounds * _putsPerCaller * _callerCount;

    public void RunRound(bool record)
    {
        record &= _recordedRounds < CommitCallers.MaxRecordedRounds;
        int slot = _recordedRounds * _putsPerCaller;
        for (var c = 0; c < _callerCount; c++)
        {
            int caller = c;
            _tasks[c] = Task.Run(() => CallerAsync(caller, record, slot));
        }
        Task.WaitAll(_tasks);
        if (record)
            _recordedRounds++;
    }

    private async Task CallerAsync(int caller, bool record, int slot)
    {
        var key = new byte[DurableKeys.KeySize];
        var value = new byte[BenchValues.ValueSize];
        var latencies = _latencies[caller];
        var writer = _writers[caller];
        var step = (ulong)_callerCount;
        for (var i = 0; i < _putsPerCaller; i++)
        {
            DurableKeys.Write(_nextKey[caller], key);
            _nextKey[caller] += step;
            BenchValues.Compose(key, value);
            var before = Stopwatch.GetTimestamp();
            await writer.PutAsync(key, value).ConfigureAwait(false);
            if (record)
                latencies[slot + i] = Stopwatch.GetTimestamp() - before;
        }
    }

    public double[] LatencyPercentiles(ReadOnlySpan<double> percentiles)
        => CommitCallers.Percentiles(_latencies, _recordedRounds * _putsPerCaller, percentiles);

    public void Dispose()
    {
    }
}
