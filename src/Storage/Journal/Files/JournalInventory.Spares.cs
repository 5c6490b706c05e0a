using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;

namespace Cairn.Journal.Files;

/// <summary>The spares <see cref="SpareJournals"/> prepares: which size the next switch will want, and taking them in.</summary>
internal sealed partial class JournalInventory
{
    /// <summary>
    /// The size the next journal will likely need, or 0 if a spare of that size is ready, it is too early
    /// to tell (the journal in service is less than half full), or large entries fill it (none is worth zeroing).
    /// </summary>
    public long SpareSizeWanted()
    {
        lock (_gate)
            return SpareSizeWantedLocked();
    }

    /// <summary>Names a spare of the size wanted now (<paramref name="size"/>); false if none is wanted.</summary>
    public bool TryReserveSpare([NotNullWhen(true)] out string? path, out long size)
    {
        lock (_gate)
        {
            size = SpareSizeWantedLocked();
            path = size == 0 ? null : Path.Combine(_directory, JournalFileName.Recyclable(_nextRecyclableNumber++));
            return path is not null;
        }
    }

    /// <summary>A spare prepared under a name <see cref="TryReserveSpare"/> gave: the next switch may take it.</summary>
    public void AddSpare(RecyclableJournal spare)
    {
        lock (_gate)
            _recyclable.Add(spare);
    }

    /// <summary>Under the lock: see <see cref="SpareSizeWanted"/>. The fill time of the journal in service is projected from how far it has come.</summary>
    private long SpareSizeWantedLocked()
    {
        long wanted;
        if (_inService is not { } active)
        {
            wanted = _sizing.NextSize(0, TimeSpan.Zero, 0);
        }
        else
        {
            long written = active.WritePosition;
            if (written * 2 < active.Size)
                return 0;
            // Large entries fill it: the switch opens their next file unzeroed for less than a spare's zeros would cost.
            if (JournalSizing.WantsUnzeroedFile(active.LastAppendLength))
                return 0;
            var elapsed = Stopwatch.GetElapsedTime(active.CreatedTimestamp);
            var projected = elapsed * ((double)active.Size / Math.Max(1, written));
            wanted = _sizing.NextSize(active.Size, projected, 0);
        }
        foreach (var spare in _recyclable)
            if (spare.Size >= wanted)
                return 0;
        return wanted;
    }
}
