namespace Cairn.Journal.Files;

/// <summary>
/// Runs <see cref="SpareJournals.PrepareNow"/> on a thread of its own, one run at a time: pre-zeroing up
/// to <see cref="JournalSizing.MaxSize"/> bytes takes long enough that neither a commit nor the flusher
/// should wait for it (and the flusher's flushes would wait behind the zeros). Once disposed it starts
/// nothing more and has waited for the run under way, so no file appears in the journal folder after
/// the environment let go of it.
/// </summary>
internal sealed class SparePreparationThread(Action prepare) : IDisposable
{
    // Guards the three fields below, so that a run is either started before Dispose looks (and waited
    // for) or not started at all. Held only to start a run or to note its end, never while one runs.
    private readonly Lock _gate = new();
    private Task _run = Task.CompletedTask;
    private bool _running;
    private bool _disposed;

    /// <summary>Starts a run unless one is under way or the owner is closing.</summary>
    public void Start()
    {
        lock (_gate)
        {
            if (_disposed || _running)
                return;
            _running = true;
            _run = Task.Factory.StartNew(static state => ((SparePreparationThread)state!).Run(), this,
                CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }
    }

    private void Run()
    {
        try
        {
            bool closing;
            lock (_gate)
                closing = _disposed;
            if (!closing) // a close right after the request need not wait for a file nobody will use
                prepare();
        }
        finally
        {
            lock (_gate)
                _running = false;
        }
    }

    public void Dispose()
    {
        Task run;
        lock (_gate)
        {
            _disposed = true;
            run = _run;
        }
        run.Wait();
    }
}
