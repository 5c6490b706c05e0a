using Cairn.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cairn.Journal.Files;

/// <summary>
/// Keeps synced journals for a shipping consumer (a replica, an incremental backup) until it acknowledges the
/// transactions in them, bounded: past <see cref="MaxBytes"/> of journals kept only for the consumer, the oldest
/// are released anyway (logged), so writers are never held up and the environment never fails for a slow
/// consumer; that consumer then gets <see cref="JournalEntriesNotRetainedException"/> and needs a new full backup.
/// Journals recovery needs (not covered by a sync) are never touched by this.
/// </summary>
internal sealed class JournalRetention
{
    /// <summary>No retention: journals go as soon as a sync covers them.</summary>
    public static JournalRetention None { get; } = new(0);

    private long _acknowledged = -1;
    private long _droppedUpTo = -1;

    /// <param name="maxBytes">Bytes of synced journals kept for consumers at most; 0 keeps none.</param>
    public JournalRetention(long maxBytes) => MaxBytes = maxBytes;

    public long MaxBytes { get; }

    public bool Enabled => MaxBytes > 0;

    /// <summary>The last transaction the consumer has taken (-1: none yet since the open).</summary>
    public long Acknowledged => Interlocked.Read(ref _acknowledged);

    /// <summary>The last transaction of journals released unacknowledged because of the bound (-1: none).</summary>
    public long DroppedUpTo => Interlocked.Read(ref _droppedUpTo);

    /// <summary>Records that the consumer has taken every transaction up to <paramref name="transactionId"/> (never moves back).</summary>
    public void Acknowledge(long transactionId)
    {
        long seen = Interlocked.Read(ref _acknowledged);
        while (transactionId > seen)
        {
            long now = Interlocked.CompareExchange(ref _acknowledged, transactionId, seen);
            if (now == seen)
                return;
            seen = now;
        }
    }

    /// <summary>
    /// Under the inventory's lock: journals whose transactions are all at or below the returned one may go. That is
    /// <paramref name="synced"/> without retention; with it, the acknowledged transaction, raised (oldest journal
    /// first, skipping pinned ones' successors) until the synced journals still kept fit in <see cref="MaxBytes"/>.
    /// </summary>
    public long ReleasableUpTo(long synced, IReadOnlyList<RetainedJournal> retained, Func<string, bool> isPinned, ILogger logger, string directory)
    {
        if (!Enabled)
            return synced;
        long limit = Math.Min(synced, Acknowledged);
        long held = 0;
        foreach (var journal in retained)
            if (journal.LastTransactionId <= synced && journal.LastTransactionId > limit)
                held += journal.Size;
        long dropped = -1;
        foreach (var journal in retained)
        {
            if (held <= MaxBytes || journal.LastTransactionId > synced || isPinned(journal.FilePath))
                break; // log order: a later journal must not go before an earlier one (a reader is on it, or it is not synced)
            if (journal.LastTransactionId <= limit)
                continue;
            limit = journal.LastTransactionId;
            held -= journal.Size;
            dropped = limit;
        }
        if (dropped >= 0 && dropped > DroppedUpTo)
        {
            Interlocked.Exchange(ref _droppedUpTo, dropped);
            Log.RetainedJournalsDropped(logger, directory, MaxBytes, dropped, Acknowledged);
        }
        return limit;
    }
}
