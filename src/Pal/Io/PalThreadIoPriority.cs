using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>What <see cref="PalFile.SyncRange"/> does with a range's write-back (CAIRN_SYNC_RANGE_*).</summary>
[Flags]
public enum PalSyncRange
{
    /// <summary>Start writing the range's dirty pages back, without waiting.</summary>
    Write = 1,
    /// <summary>Wait until the range's pages are written back (those started earlier, and any dirtied since).</summary>
    Wait = 2,
}

/// <summary>
/// The calling thread at the lowest best-effort I/O priority (Linux IOPRIO_CLASS_BE level 7; Windows background mode,
/// which also lowers the thread's CPU priority) until disposed, so a long copy yields the disk to journal writes.
/// Dispose on the same thread.
/// </summary>
public readonly struct PalThreadIoPriority : IDisposable
{
    private readonly int _previous;
    private readonly bool _lowered;

    private PalThreadIoPriority(int previous)
    {
        _previous = previous;
        _lowered = true;
    }

    /// <summary>
    /// Lowers the calling thread's I/O priority. A system that refuses (a seccomp filter, a container without the
    /// call) leaves the thread as it was: the priority is a courtesy to other writers, never a reason to fail.
    /// </summary>
    public static PalThreadIoPriority Lower()
    {
        PalLibrary.EnsureInitialized();
        return NativeMethods.cairn_thread_io_priority_low(out int previous, out _) == (int)PalStatus.Ok
            ? new PalThreadIoPriority(previous)
            : default;
    }

    /// <summary>Gives the thread back the I/O priority it had.</summary>
    public void Dispose()
    {
        if (_lowered)
            _ = NativeMethods.cairn_thread_io_priority_restore(_previous, out _);
    }
}
