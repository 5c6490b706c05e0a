namespace Cairn.Backups;

/// <summary>
/// Holds a backup's copy to a byte rate (<see cref="BackupOptions.MaxBytesPerSecond"/>): after each piece the copy
/// reports, it waits until the clock says that many bytes were due since the copy began. A copy out of the page cache
/// otherwise runs at memory speed and takes a core and the memory bus from the writers (docs/benchmarks.md, "Issue 27,
/// backups: what costs the writers"); a lower CPU priority does not lower its memory traffic, a rate does.
/// </summary>
/// <remarks>
/// The budget counts from the copy's start, not per interval: a piece that was slow (the disk, a busy machine) leaves
/// credit the next pieces may use, so the copy's average never exceeds the rate and never falls below it by the pace's
/// own doing. At any moment the bytes copied are at most the rate times the time since the start, plus one piece.
/// </remarks>
internal sealed class CopyPace
{
    private readonly long _bytesPerSecond;
    private readonly TimeProvider _clock;
    private readonly CancellationToken _cancellation;
    private readonly long _start;
    private long _bytes;

    private CopyPace(long bytesPerSecond, TimeProvider clock, CancellationToken cancellation)
    {
        _bytesPerSecond = bytesPerSecond;
        _clock = clock;
        _cancellation = cancellation;
        _start = clock.GetTimestamp();
    }

    /// <summary>A pace of <paramref name="bytesPerSecond"/> on <paramref name="clock"/>, started now; null when there is no rate.</summary>
    public static CopyPace? Start(long? bytesPerSecond, TimeProvider clock, CancellationToken cancellation)
        => bytesPerSecond is long rate ? new CopyPace(rate, clock, cancellation) : null;

    /// <summary>Counts <paramref name="bytes"/> more copied and waits until they are due; a cancellation ends the wait.</summary>
    public void Copied(long bytes)
    {
        _bytes += bytes;
        var due = TimeSpan.FromSeconds((double)_bytes / _bytesPerSecond);
        var ahead = due - _clock.GetElapsedTime(_start);
        // Timers count whole milliseconds and would cut the rest: rounded up, so the copy is never early.
        if (ahead > TimeSpan.Zero)
            Task.Delay(TimeSpan.FromMilliseconds(Math.Ceiling(ahead.TotalMilliseconds)), _clock, _cancellation).GetAwaiter().GetResult();
    }
}
