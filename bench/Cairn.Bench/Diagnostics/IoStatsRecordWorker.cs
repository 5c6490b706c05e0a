using Cairn.Diagnostics;

namespace Cairn.Bench.Diagnostics;

/// <summary>
/// The second thread of the two-thread <see cref="IoStatsBenchmarks"/>. It lives for the whole
/// benchmark, so an invocation costs one wake-up and one completion signal, not a thread start;
/// against tens of thousands of records per invocation that is noise.
/// </summary>
public sealed class IoStatsRecordWorker : IDisposable
{
    private readonly IoStats _stats;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _start = new();
    private readonly ManualResetEventSlim _done = new();
    private Exception? _failure;
    private int _count;
    private volatile bool _stopping;

    public IoStatsRecordWorker(IoStats stats)
    {
        _stats = stats;
        _thread = new Thread(Run) { IsBackground = true, Name = "io-stats record worker" };
        _thread.Start();
    }

    /// <summary>Starts recording <paramref name="count"/> operations on the worker.</summary>
    public void Start(int count)
    {
        _count = count;
        _done.Reset();
        _start.Set();
    }

    /// <summary>Waits for the records begun by <see cref="Start"/>.</summary>
    public void Finish()
    {
        _done.Wait();
        if (_failure is { } failure)
            throw new InvalidOperationException("the record worker failed", failure);
    }

    public void Dispose()
    {
        _stopping = true;
        _start.Set();
        _thread.Join();
        _start.Dispose();
        _done.Dispose();
    }

    private void Run()
    {
        while (true)
        {
            _start.Wait();
            _start.Reset();
            if (_stopping)
                return;
            try
            {
                // Transactions far from the benchmark thread's, as a second committer's would be.
                IoStatsBenchmarks.RecordMany(_stats, 1L << 40, _count);
            }
            catch (Exception e)
            {
                _failure = e;
            }
            _done.Set();
        }
    }
}
