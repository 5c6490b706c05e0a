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
        => JournalBytesBetween(Volatile.Read(ref _syncedPosition).Position, logEnd, ref _spanCache);

    /// <summary>
    /// Journal bytes from <paramref name="from"/> to <paramref name="logEnd"/>, the full journals between counted through
    /// <paramref name="cache"/> (one per caller: committers and the flusher count from different positions).
    /// </summary>
    private long JournalBytesBetween(JournalPosition from, JournalPosition logEnd, ref JournalSpan? cache)
    {
        if (logEnd.Sequence <= from.Sequence)
            return Math.Max(0, logEnd.EndOffset - from.EndOffset);
        var span = Volatile.Read(ref cache);
        if (span is null || span.FromSequence != from.Sequence || span.BelowSequence != logEnd.Sequence)
        {
            span = new JournalSpan(from.Sequence, logEnd.Sequence, _target.JournalFileBytes(from.Sequence, logEnd.Sequence));
            Volatile.Write(ref cache, span);
        }
        return Math.Max(0, span.FileBytes - from.EndOffset) + logEnd.EndOffset;
    }

    /// <summary>
    /// Whether the journal after the last sync has passed the recovery objective. Never while a backup holds the syncs:
    /// no sync can bring the span down then, and a flush per commit would only rewrite the same pages on the writers'
    /// time; the hold's end wakes the cycle, which then flushes and syncs at once.
    /// </summary>
    private bool RecoveryObjectiveExceeded()
        => _settings.MaxRecoveryJournalBytes != long.MaxValue
            && Volatile.Read(ref _syncHoldCount) == 0
            && JournalBytesToReplay(WrittenLogEnd()) > _settings.MaxRecoveryJournalBytes;

    /// <summary>
    /// The log's end as far as it is written. A lazy commit is published before its entry is written (its state's
    /// position is <see cref="JournalPosition.None"/> until then), so in a lazy stream the newest state's position is
    /// almost never known when a commit asks: the durable state's, one journal write behind, stands in (issue 29, W).
    /// </summary>
    private JournalPosition WrittenLogEnd()
    {
        var newest = _states.Current.JournalPosition;
        return newest != JournalPosition.None ? newest : _states.DurableState().JournalPosition;
    }

    /// <summary>After a sync wrote <paramref name="position"/> into the header: recovery would start there now.</summary>
    private void RecordSyncedPosition(JournalPosition position) => Volatile.Write(ref _syncedPosition, new SyncedPosition(position));
}
