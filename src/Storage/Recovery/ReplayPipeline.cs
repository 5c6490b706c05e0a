using Cairn.Journal;
using Cairn.Journal.Files;

namespace Cairn.Recovery;

/// <summary>
/// The reading side of a replay in two threads (issue 29 item 9): the reader's <see cref="JournalReadWindow"/> reads
/// every chunk into a batch of its own (<see cref="IReadChunkSource"/>), the reader adds each entry it checked whole and
/// decided to apply, and a full batch goes to the <see cref="ReplayApplier"/> (started with the first one) when the
/// window moves on to the next chunk. So the reader validates, and scans past the log's end, while the applier applies.
/// Used by the reading thread only. <see cref="Finish"/> waits for the applier; <see cref="Dispose"/> stops it.
/// </summary>
internal sealed unsafe class ReplayPipeline : IReadChunkSource, IDisposable
{
    private readonly ReplayHandOver _handOver;
    private readonly RecoveredPages _pages;
    private ReplayApplier? _applier;
    // The batch the window last read into; null after Finish.
    private ReplayBatch? _current;
    private bool _finished;

    public ReplayPipeline(RecoveredPages pages, ReplayBuffers buffers)
    {
        _pages = pages;
        _handOver = new ReplayHandOver(buffers.ChunkBytes, buffers.MaxBufferedBytes);
    }

    /// <summary>Stopwatch ticks the reader waited for the applier to make room.</summary>
    public long ReaderWaitTicks => _handOver.ReaderWaitTicks;

    /// <summary>Stopwatch ticks the applier waited for entries (after <see cref="Finish"/>).</summary>
    public long ApplierWaitTicks => _handOver.ApplierWaitTicks;

    /// <summary>Stopwatch ticks the applier spent applying (after <see cref="Finish"/>).</summary>
    public long ApplyTicks => _applier?.ApplyTicks ?? 0;

    /// <summary>
    /// The buffer for the window's next chunk: the current batch's again if nothing in it is to be applied, else a new
    /// batch, once the current one went to the applier. Throws the applier's failure, if it failed meanwhile.
    /// </summary>
    public JournalBuffer Next(long bytes)
    {
        ObjectDisposedException.ThrowIf(_finished, this);
        if (_current is { Entries.Count: 0 } && bytes <= _current.Buffer.Capacity)
            return _current.Buffer;
        var previous = _current;
        _current = null;
        if (previous is not null)
            HandOver(previous);
        _current = _handOver.TakeFree(bytes);
        return _current.Buffer;
    }

    /// <summary>
    /// Hands the current batch to the applier now (the end of a journal's log: the reader goes on to scan past it, and the
    /// applier should not wait for that). The window must read no more of its current chunk (<see cref="JournalReadWindow.Forget"/>).
    /// </summary>
    public void HandOverCurrent()
    {
        var current = _current;
        _current = null;
        if (current is not null)
            HandOver(current);
    }

    /// <summary>
    /// Adds an entry of <paramref name="path"/> the reader checked whole (<see cref="JournalEntryReader.Check"/>), in the
    /// window's current chunk, to be applied after every entry added before it.
    /// </summary>
    public void Add(string path, byte* entry, in JournalEntryValidation validation)
    {
        var batch = _current ?? throw new InvalidOperationException("The pipeline has no chunk to add entries of: its window read none.");
        batch.Add(path, entry, validation);
    }

    /// <summary>
    /// Hands the last batch over and waits for the applier to apply everything added; throws its failure (which came
    /// from an entry before anything the reader may have failed on, so it is the replay's failure).
    /// </summary>
    public void Finish()
    {
        if (_finished)
            return;
        _finished = true;
        try
        {
            HandOverCurrent();
        }
        finally
        {
            _handOver.Complete();
        }
        if (_applier?.Join() is { } failure)
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(failure);
    }

    private void HandOver(ReplayBatch batch)
    {
        if (batch.Entries.Count == 0)
        {
            _handOver.Return(batch);
            return;
        }
        _applier ??= ReplayApplier.Start(_handOver, _pages);
        _handOver.Post(batch);
    }

    /// <summary>Stops the applier where it is (if <see cref="Finish"/> did not run), waits for it, and frees every batch.</summary>
    public void Dispose()
    {
        _finished = true;
        if (_current is not null)
        {
            _handOver.Return(_current);
            _current = null;
        }
        _handOver.Cancel();
        _applier?.Join();
        _handOver.Dispose();
    }
}
