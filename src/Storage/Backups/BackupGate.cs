namespace Cairn.Backups;

/// <summary>
/// Keeps hot copies and a close apart: a backup copies the environment's files, so closing them under it would fail the
/// copy with an I/O error. A copy counts itself, then checks the closing flag; a close sets the flag, then counts: one
/// of the two sees the other.
/// </summary>
internal sealed class BackupGate
{
    // Hot copies running now.
    private int _running;
    // Set while a close decides whether it may go on, and for good once it does.
    private int _closing;

    /// <summary>Counts a copy in, or throws <see cref="ObjectDisposedException"/> naming <paramref name="owner"/> if a close goes on; dispose the result when the copy ends.</summary>
    public Entry Enter(object owner)
    {
        Interlocked.Increment(ref _running);
        if (Volatile.Read(ref _closing) != 0)
        {
            Interlocked.Decrement(ref _running);
            throw new ObjectDisposedException(owner.GetType().FullName);
        }
        return new Entry(this);
    }

    /// <summary>From here on no copy starts; throws <see cref="BackupRunningException"/> (and lets copies start again) if one runs.</summary>
    public void BeginClose()
    {
        Interlocked.Exchange(ref _closing, 1);
        if (Volatile.Read(ref _running) is > 0 and var backups)
        {
            Volatile.Write(ref _closing, 0);
            throw new BackupRunningException(backups);
        }
    }

    /// <summary>The close did not go on (transactions were open): copies may start again.</summary>
    public void CancelClose() => Volatile.Write(ref _closing, 0);

    /// <summary>A running copy, counted until disposed.</summary>
    public readonly struct Entry(BackupGate gate) : IDisposable
    {
        public void Dispose() => Interlocked.Decrement(ref gate._running);
    }
}
