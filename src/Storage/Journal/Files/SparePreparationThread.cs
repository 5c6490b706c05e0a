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
    private Task _run = Task.CompletedTask;
    private int _running; // 1 while a run is under way, so that a second request does not start another
    private volatile bool _disposing;

    /// <summary>Starts a run unless one is under way or the owner is closing.</summary>
    public void Start()
    {
        if (_disposing || Interlocked.CompareExchange(ref _running, 1, 0) != 0)
            return;
        _run = Task.Factory.StartNew(static state => ((SparePreparationThread)state!).Run(), this,
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    private void Run()
    {
        try
        {
            if (!_disposing)
                prepare();
        }
        finally
        {
            Volatile.Write(ref _running, 0);
        }
    }

    public void Dispose()
    {
        _disposing = true;
        _run.Wait();
    }
}
