using System.Diagnostics;
using System.Runtime.CompilerServices;
using Cairn.Journal;

namespace Cairn.Recovery;

/// <summary>
/// The replay's applying thread: takes the batches the reading thread posts, in order, and applies each entry's page
/// records to the rebuilt pages. Every entry it gets was checked whole by the reader (hashes, every record and diff op),
/// so nothing it applies can turn out corrupt half-way; what can still fail here is the pages' own work (reading base
/// pages from the data file, a spill, a read-only open's memory limit). A failure stops it and reaches the reader
/// through the hand-over, and the open through <see cref="Join"/>.
/// </summary>
internal sealed unsafe class ReplayApplier
{
    private readonly ReplayHandOver _handOver;
    private readonly RecoveredPages _pages;
    private readonly Thread _thread;
    // Written by the applying thread only, read after Join (which orders them).
    private Exception? _failure;
    private long _applyTicks;

    private ReplayApplier(ReplayHandOver handOver, RecoveredPages pages)
    {
        _handOver = handOver;
        _pages = pages;
        // A thread of its own, not the pool's: it runs for the whole replay, and an open must not wait on a busy pool.
        _thread = new Thread(Run) { IsBackground = true, Name = "Cairn replay apply" };
    }

    /// <summary>Starts applying what <paramref name="handOver"/> delivers into <paramref name="pages"/>, which only this thread touches until <see cref="Join"/>.</summary>
    public static ReplayApplier Start(ReplayHandOver handOver, RecoveredPages pages)
    {
        var applier = new ReplayApplier(handOver, pages);
        applier._thread.Start();
        return applier;
    }

    /// <summary>Waits for the thread to end (the hand-over completed or cancelled, or a failure); its failure, if any.</summary>
    public Exception? Join()
    {
        _thread.Join();
        return _failure;
    }

    /// <summary>Stopwatch ticks spent applying entries (after <see cref="Join"/>).</summary>
    public long ApplyTicks => _applyTicks;

    // The applier's loop runs once per process, for the whole replay: optimized from the start, like the one-thread replay's.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Run()
    {
        var reader = new JournalEntryReader();
        try
        {
            var pages = _pages;
            while (_handOver.TakeFull() is { } batch)
            {
                long started = Stopwatch.GetTimestamp();
                try
                {
                    pages.PrefetchDataFile(); // once, with the first batch (it keeps track)
                    foreach (var entry in batch.Entries)
                        reader.ApplyChecked((byte*)entry.Pointer, entry.Validation, ref pages);
                }
                catch (JournalCorruptionException e)
                {
                    throw e.InFile(batch.Path!);
                }
                finally
                {
                    _applyTicks += Stopwatch.GetTimestamp() - started;
                    _handOver.Applied(batch);
                }
            }
        }
        catch (Exception e)
        {
            // Caught whole: an exception escaping a thread would end the process; the open rethrows it.
            _failure = e;
            _handOver.Fail(e);
        }
        finally
        {
            reader.Dispose();
        }
    }
}
