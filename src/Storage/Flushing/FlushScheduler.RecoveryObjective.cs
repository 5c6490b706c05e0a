using Cairn.Journal;

namespace Cairn.Flushing;

/// <summary>
/// The recovery objective (<see cref="FlushSettings.MaxRecoveryJournalBytes"/>): an open after a crash replays the
/// journal from the position the last sync recorded in the header to the log's end, so once that span passes the
/// objective a flush and a sync are due at once, whatever the flush threshold and the sync interval say
/// (docs/decisions.md, "issue 27, recovery objective").
/// </summary>
/// <remarks>
/// The span is counted from positions, with no I/O: within one journal the difference of the offsets; across journals
/// the rest of the synced one, the full journals between, and the offset in the current one. The sizes of the full
/// journals are asked of the target only when the pair of journals changes (a journal switch or a sync), so a commit
/// pays two reads and a subtraction.
/// </remarks>
internal sealed partial class FlushScheduler
{
    // Where the header's sync point sends a recovery (written under the gate by a sync, read by committers).
    private SyncedPosition _syncedPosition = new(JournalPosition.None);
    // The full journals' bytes between the synced journal and the current one, for the pair they were counted for.
    private JournalSpan? _spanCache;

    private sealed record SyncedPosition(JournalPosition Position);

    private sealed record JournalSpan(long FromSequence, long BelowSequence, long FileBytes);

    /// <summary>Journal bytes a crash now would leave to replay: from the synced position to <paramref name="logEnd"/>.</summary>
    internal long JournalBytesToReplay(JournalPosition logEnd)
    {
        var synced = Volatile.Read(ref _syncedPosition).Position;
        if (logEnd.Sequence <= synced.Sequence)
            return Math.Max(0, logEnd.EndOffset - synced.EndOffset);
        var span = Volatile.Read(ref _spanCache);
        if (span is null || span.FromSequence != synced.Sequence || span.BelowSequence != logEnd.Sequence)
        {
            span = new JournalSpan(synced.Sequence, logEnd.Sequence, _target.JournalFileBytes(synced.Sequence, logEnd.Sequence));
            Volatile.Write(ref _spanCache, span);
        }
        return Math.Max(0, span.FileBytes - synced.EndOffset) + logEnd.EndOffset;
    }

    /// <summary>
    /// Whether the journal after the last sync has passed the recovery objective. Never while a backup holds the syncs:
    /// no sync can bring the span down then, and a flush per commit would only rewrite the same pages on the writers'
    /// time; the hold's end wakes the cycle, which then flushes and syncs at once.
    /// </summary>
    private bool RecoveryObjectiveExceeded()
        => _settings.MaxRecoveryJournalBytes != long.MaxValue
            && Volatile.Read(ref _syncHoldCount) == 0
            && JournalBytesToReplay(_states.Current.JournalPosition) > _settings.MaxRecoveryJournalBytes;

    /// <summary>After a sync wrote <paramref name="position"/> into the header: recovery would start there now.</summary>
    private void RecordSyncedPosition(JournalPosition position) => Volatile.Write(ref _syncedPosition, new SyncedPosition(position));
}
