namespace Cairn.Flushing;

/// <summary>
/// The environment's background thread: runs a flush-and-sync cycle whenever it is woken or the cycle's
/// own next deadline passes. The cycle returns how long it may sleep (infinite when nothing is
/// pending); a wake-up during a cycle is never lost, because the event stays set until the next wait.
/// </summary>
internal sealed class FlushThread : IDisposable
{
    private readonly Func<TimeSpan> _cycle;
    private readonly ManualResetEventSlim _wake = new(false);
    private readonly Thread _thread;
    private volatile bool _stopping;

    public FlushThread(string name, Func<TimeSpan> cycle)
    {
        _cycle = cycle;
        _thread = new Thread(Run) { IsBackground = true, Name = name };
        _thread.Start();
    }

    public void Wake() => _wake.Set();

    /// <summary>Stops after the cycle in progress, if any, and waits for the thread to end.</summary>
    public void Stop()
    {
        if (Thread.CurrentThread == _thread)
            throw new InvalidOperationException("The flush thread cannot stop itself.");
        _stopping = true;
        _wake.Set();
        _thread.Join();
    }

    private void Run()
    {
        while (!_stopping)
        {
            var sleep = _cycle();
            if (_stopping)
                break;
            _wake.Wait(sleep);
            _wake.Reset();
        }
    }

    public void Dispose()
    {
        if (_thread.IsAlive)
            Stop();
        _wake.Dispose();
    }
}
