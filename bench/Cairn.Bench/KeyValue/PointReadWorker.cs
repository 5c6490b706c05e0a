namespace Cairn.Bench.KeyValue;

/// <summary>
/// A second thread for the two-thread point-read benchmark. It lives for the whole benchmark, with
/// its own reader created on it, so an invocation costs one wake-up and one completion signal, not
/// a thread start; against tens of thousands of reads per invocation that is noise.
/// </summary>
public sealed class PointReadWorker : IDisposable
{
    private readonly IBenchStore _store;
    private readonly KeySet _keys;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _start = new();
    private readonly ManualResetEventSlim _done = new();
    private readonly ManualResetEventSlim _ready = new();
    private Exception? _failure;
    private int _first, _count, _found;
    private volatile bool _stopping;

    public PointReadWorker(IBenchStore store, KeySet keys)
    {
        _store = store;
        _keys = keys;
        _thread = new Thread(Run) { IsBackground = true, Name = "point-read worker" };
        _thread.Start();
        _ready.Wait();
        ThrowIfFailed();
    }

    /// <summary>Starts reading <paramref name="count"/> keys from <paramref name="first"/> (wrapping) on the worker.</summary>
    public void Start(int first, int count)
    {
        _first = first;
        _count = count;
        _done.Reset();
        _start.Set();
    }

    /// <summary>Waits for the reads begun by <see cref="Start"/>; returns how many were found.</summary>
    public int Finish()
    {
        _done.Wait();
        ThrowIfFailed();
        return _found;
    }

    public void Dispose()
    {
        _stopping = true;
        _start.Set();
        _thread.Join();
        _start.Dispose();
        _done.Dispose();
        _ready.Dispose();
    }

    /// <summary>The loop both threads run: one read transaction per key.</summary>
    public static int ReadEachInOwnTransaction(IBenchReader reader, KeySet keys, int first, int count)
    {
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        var found = 0;
        var index = first;
        for (var i = 0; i < count; i++)
        {
            if (reader.ReadInOwnTransaction(keys[index], value) >= 0)
                found++;
            if (++index == keys.Count)
                index = 0;
        }
        return found;
    }

    private void Run()
    {
        IBenchReader reader;
        try
        {
            reader = _store.CreateReader();
        }
        catch (Exception e)
        {
            _failure = e;
            _ready.Set();
            return;
        }
        _ready.Set();
        using (reader)
        {
            while (true)
            {
                _start.Wait();
                _start.Reset();
                if (_stopping)
                    return;
                try
                {
                    _found = ReadEachInOwnTransaction(reader, _keys, _first, _count);
                }
                catch (Exception e)
                {
                    _failure = e;
                }
                _done.Set();
            }
        }
    }

    private void ThrowIfFailed()
    {
        if (_failure is { } failure)
            throw new InvalidOperationException("the point-read worker failed", failure);
    }
}
