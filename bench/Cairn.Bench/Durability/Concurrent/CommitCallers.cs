using System.Diagnostics;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Durability.Concurrent;

/// <summary>
/// The callers of the concurrent-commit benchmark: one dedicated thread each, alive for the whole
/// benchmark, each with its own <see cref="IDurableWriter"/> created on that thread. A round
/// (<see cref="RunRound"/>) releases every caller at once; each makes its share of single-put
/// durable commits one after another and the round ends when the last one is done.
/// </summary>
/// <remarks>
/// Keys: caller <c>c</c> of <c>n</c> puts <see cref="DurableKeys"/> indices f + c, f + c + n,
/// f + c + 2n, … (f the first key, 0 in the benchmark), continuing across rounds, so every put in a
/// run is a distinct key and the callers together cover the same indices as one caller would. Latencies: in a round that records, each put's
/// <see cref="Stopwatch"/> ticks go into the caller's own array, allocated up front for
/// <see cref="MaxRecordedRounds"/> rounds; nothing is allocated or shared per put.
/// </remarks>
public sealed class CommitCallers : ICommitCallers
{
    /// <summary>Recorded rounds kept per caller; rounds past this are timed but not recorded.</summary>
    public const int MaxRecordedRounds = 32;

    private readonly IDurableStore _store;
    private readonly int _callerCount;
    private readonly int _putsPerCaller;
    private readonly ulong _firstKey;
    private readonly Thread[] _threads;
    private readonly long[][] _latencies;
    private readonly Barrier _start;
    private readonly Barrier _done;
    private readonly Exception?[] _failures;
    private volatile bool _stopping;
    private volatile bool _recordThisRound;
    private int _recordedRounds;

    public CommitCallers(IDurableStore store, int callerCount, int putsPerCaller, ulong firstKey = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(callerCount, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(putsPerCaller, 1);
        _store = store;
        _callerCount = callerCount;
        _putsPerCaller = putsPerCaller;
        _firstKey = firstKey;
        _latencies = new long[callerCount][];
        _failures = new Exception?[callerCount];
        _threads = new Thread[callerCount];
        // The benchmark thread is the extra participant: it releases a round and waits for its end.
        _start = new Barrier(callerCount + 1);
        _done = new Barrier(callerCount + 1);
        for (var c = 0; c < callerCount; c++)
        {
            _latencies[c] = new long[MaxRecordedRounds * putsPerCaller];
            var caller = c;
            _threads[c] = new Thread(() => Run(caller)) { IsBackground = true, Name = $"commit caller {c}" };
            _threads[c].Start();
        }
        // Every caller creates its writer, then meets the others here; a failure is reported now.
        _done.SignalAndWait();
        try
        {
            ThrowIfFailed();
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    public int CallerCount => _callerCount;

    public int PutsPerRound => _callerCount * _putsPerCaller;

    /// <summary>Rounds whose latencies were recorded (at most <see cref="MaxRecordedRounds"/>).</summary>
    public int RecordedRounds => _recordedRounds;

    /// <summary>
    /// Runs one round: every caller makes its <c>putsPerCaller</c> commits. With
    /// <paramref name="record"/> each put's latency is kept for <see cref="LatencyPercentile"/>.
    /// </summary>
    public void RunRound(bool record)
    {
        _recordThisRound = record && _recordedRounds < MaxRecordedRounds;
        _start.SignalAndWait();
        _done.SignalAndWait();
        if (_recordThisRound)
            _recordedRounds++;
        ThrowIfFailed();
    }

    /// <summary>
    /// The latency at <paramref name="percentile"/> (0–100, nearest rank) over every recorded put of
    /// every caller, in microseconds; NaN when nothing was recorded. Allocates (after the run only).
    /// </summary>
    public double LatencyPercentile(double percentile) => LatencyPercentiles([percentile])[0];

    /// <summary>Several percentiles at once from one sorted copy; see <see cref="LatencyPercentile"/>.</summary>
    public double[] LatencyPercentiles(ReadOnlySpan<double> percentiles)
        => Percentiles(_latencies, _recordedRounds * _putsPerCaller, percentiles);

    /// <summary>Nearest-rank percentiles, in microseconds, over the first <paramref name="perCaller"/> Stopwatch-tick latencies of each caller (NaN for none).</summary>
    internal static double[] Percentiles(long[][] latencies, int perCaller, ReadOnlySpan<double> percentiles)
    {
        var all = new long[perCaller * latencies.Length];
        for (var c = 0; c < latencies.Length; c++)
            Array.Copy(latencies[c], 0, all, c * perCaller, perCaller);
        Array.Sort(all);
        var result = new double[percentiles.Length];
        for (var i = 0; i < percentiles.Length; i++)
        {
            if (all.Length == 0)
            {
                result[i] = double.NaN;
                continue;
            }
            var rank = (int)Math.Ceiling(percentiles[i] / 100 * all.Length);
            var ticks = all[Math.Clamp(rank - 1, 0, all.Length - 1)];
            result[i] = ticks * 1e6 / Stopwatch.Frequency;
        }
        return result;
    }

    /// <summary>Recorded puts in all (rounds × callers × puts per caller).</summary>
    public long RecordedPuts => (long)_recordedRounds * _putsPerCaller * _callerCount;

    public void Dispose()
    {
        if (_stopping)
            return;
        _stopping = true;
        _start.SignalAndWait();
        foreach (var thread in _threads)
            thread.Join();
        _start.Dispose();
        _done.Dispose();
    }

    private void Run(int caller)
    {
        IDurableWriter? writer = null;
        try
        {
            writer = _store.CreateWriter();
        }
        catch (Exception e)
        {
            _failures[caller] = e;
        }
        _done.SignalAndWait();

        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        var latencies = _latencies[caller];
        var nextKey = _firstKey + (ulong)caller;
        var step = (ulong)_callerCount;
        try
        {
            while (true)
            {
                _start.SignalAndWait();
                if (_stopping)
                    return;
                if (writer is not null && _failures[caller] is null)
                {
                    try
                    {
                        var record = _recordThisRound;
                        var slot = _recordedRounds * _putsPerCaller;
                        for (var i = 0; i < _putsPerCaller; i++)
                        {
                            DurableKeys.Write(nextKey, key);
                            nextKey += step;
                            BenchValues.Compose(key, value);
                            var before = Stopwatch.GetTimestamp();
                            writer.Put(key, value);
                            var after = Stopwatch.GetTimestamp();
                            if (record)
                                latencies[slot + i] = after - before;
                        }
                    }
                    catch (Exception e)
                    {
                        _failures[caller] = e;
                    }
                }
                _done.SignalAndWait();
            }
        }
        finally
        {
            writer?.Dispose();
        }
    }

    private void ThrowIfFailed()
    {
        // No LINQ on the way that finds nothing: this runs after every round, inside the timing.
        var failed = false;
        foreach (var failure in _failures)
            failed |= failure is not null;
        if (!failed)
            return;
        var failures = _failures.Where(f => f is not null).Cast<Exception>().ToArray();
        if (failures.Length == 1)
            throw new InvalidOperationException($"a commit caller failed: {failures[0].Message}", failures[0]);
        if (failures.Length > 1)
            throw new AggregateException($"{failures.Length} of {_callerCount} commit callers failed", failures);
    }
}
