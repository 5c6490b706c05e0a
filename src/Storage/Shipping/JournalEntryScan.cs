using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;

namespace Cairn.Shipping;

/// <summary>
/// Reads this environment's committed entries after a transaction out of its journal files (the retained
/// ones and the one in service), in log order, each validated (header and payload hashes), up to a
/// transaction known durable and never past it. The files are pinned by the caller for the scan.
/// </summary>
/// <remarks>
/// Each file is read from its start (or from where the previous scan stopped, see <see cref="ScanHint"/>) up to
/// its log's end: an empty or invalid block, or a stale entry of the file's earlier life (a transaction lower
/// than one already seen in it; a recycled file's old entries are always older than its new ones). Entries of
/// other environments (a journal group's shared file) are stepped over. An entry past the expected transaction
/// before any was found means the wanted ones were released: <see cref="JournalEntriesNotRetainedException"/>.
/// </remarks>
internal static unsafe class JournalEntryScan
{
    /// <summary>Where a scan stopped: the next transaction's entry starts at <see cref="Offset"/> of journal <see cref="Sequence"/> (or later).</summary>
    internal sealed record ScanHint(long Sequence, long Offset, long NextTransactionId);

    /// <summary>
    /// The entries of transactions (<paramref name="after"/>, <paramref name="upTo"/>] of <paramref name="environmentId"/>
    /// in <paramref name="journals"/> (log order). <paramref name="hint"/>, when it starts at <paramref name="after"/> + 1,
    /// skips what an earlier scan read; <paramref name="stopped"/> receives where this one stopped.
    /// </summary>
    public static IEnumerable<ShippedJournalEntry> Read(IReadOnlyList<PinnedJournal> journals, Guid environmentId, string directory,
        long after, long upTo, ScanHint? hint, Action<ScanHint> stopped)
    {
        if (after >= upTo)
            yield break;
        long expected = after + 1;
        long firstSeen = -1;
        using var window = new JournalReadWindow(readAhead: true);
        foreach (var journal in journals)
        {
            if (journal.LastTransactionId >= 0 && journal.LastTransactionId < expected && (hint is null || hint.Sequence != journal.Sequence))
                continue; // holds only what the consumer has (a recovered journal's value is an upper bound, never too low)
            if (hint is not null && journal.Sequence < hint.Sequence && hint.NextTransactionId == expected)
                continue;
            long offset = hint is not null && hint.Sequence == journal.Sequence && hint.NextTransactionId == expected ? hint.Offset : 0;
            long highestHere = -1;
            using (var file = PalFile.Open(journal.Path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential))
            {
                window.Reset(file);
                while (expected <= upTo)
                {
                    var validation = ValidateAt(window, offset);
                    if (!validation.IsValid)
                        break;
                    var header = validation.Header;
                    if (header.EnvironmentId != environmentId)
                    {
                        offset += validation.EntrySize;
                        continue;
                    }
                    long transaction = header.TransactionId;
                    if (transaction < highestHere)
                        break; // a stale entry of the file's earlier life: this file's log ended
                    highestHere = transaction;
                    if (firstSeen < 0 && transaction >= expected)
                        firstSeen = transaction;
                    if (transaction < expected)
                    {
                        offset += validation.EntrySize;
                        continue;
                    }
                    if (transaction > expected)
                    {
                        if (expected == after + 1)
                            throw new JournalEntriesNotRetainedException(directory, after, transaction);
                        throw new JournalCorruptionException(journal.Path, offset, transaction,
                            $"transaction {expected} is missing: the log jumps from {expected - 1} to {transaction}");
                    }
                    var shipped = new ShippedJournalEntry(transaction, header.EnvironmentId, Copy(window, offset, validation.EntrySize));
                    expected++;
                    offset += validation.EntrySize;
                    stopped(new ScanHint(journal.Sequence, offset, expected));
                    yield return shipped;
                }
            }
            if (expected > upTo)
                yield break;
        }
        if (expected == after + 1)
            throw new JournalEntriesNotRetainedException(directory, after, firstSeen);
        throw new JournalCorruptionException(directory, 0, expected,
            $"the journals end at transaction {expected - 1}, but transaction {upTo} was committed durably");
    }

    private static JournalEntryValidation ValidateAt(JournalReadWindow window, long offset) => window.Validate(offset, out _);

    /// <summary>The bytes of a validated entry (the window holds all of them since its validation).</summary>
    private static byte[] Copy(JournalReadWindow window, long offset, long length)
    {
        byte* entry = window.At(offset, length, out long available);
        if (available < length)
            throw new InvalidOperationException($"The read window lost the entry at {offset} ({available} of {length} bytes).");
        return new ReadOnlySpan<byte>(entry, checked((int)length)).ToArray();
    }
}
