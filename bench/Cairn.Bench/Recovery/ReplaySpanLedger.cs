using System.Globalization;
using Cairn.Diagnostics;

namespace Cairn.Bench.Recovery;

/// <summary>
/// The journal bytes a crash would leave to replay, counted from outside the engine as the engine counts them for its
/// recovery objective (FlushScheduler.RecoveryObjective.cs): from the synced transaction's journal position to the log's
/// end; within one journal the difference of the offsets, across journals the rest of the synced one, the full journals
/// between and the offset in the last. Positions come from the environment's public <see cref="IoStats"/>: each journal
/// write names its file, its length and its transactions, and entries follow one another from offset 0, so a file's
/// writes added up give each transaction's end. Only one environment's durable, unshared journal is followed (the
/// defaults); a record lost from the ring would make every position after it wrong, so a gap throws.
/// </summary>
internal sealed class ReplaySpanLedger(IoStats stats)
{
    private readonly IoStats _stats = stats;
    // Each journal write seen, in log order: the last transaction it holds and the position just past it.
    private readonly List<(long TransactionId, long Sequence, long End)> _ends = [];
    // Each journal file seen: its prepared size (what a full journal counts for) and how far it is written.
    private readonly Dictionary<long, (long Size, long Written)> _files = [];
    private readonly List<IoOperation> _syncOps = [];
    private readonly List<IoOperation> _flushOps = [];
    private long _nextSequence;

    /// <summary>The last transaction whose journal write the ledger has seen.</summary>
    public long LastTransactionId => _ends.Count == 0 ? 0 : _ends[^1].TransactionId;

    /// <summary>Records written since the last <see cref="Poll"/> (cheap: one read).</summary>
    public long Unpolled => _stats.TotalRecorded - _nextSequence;

    /// <summary>Reads the records written since the last poll.</summary>
    public void Poll()
    {
        if (_stats.TotalRecorded == _nextSequence)
            return;
        foreach (var op in _stats.Snapshot())
        {
            if (op.Sequence < _nextSequence)
                continue;
            if (op.Sequence != _nextSequence || _stats.Dropped != 0)
                throw new InvalidOperationException(FormattableString.Invariant(
                    $"I/O records {_nextSequence} to {op.Sequence - 1} were lost from the ring ({_stats.Dropped} dropped): the journal positions after them are unknown"));
            _nextSequence++;
            if (op.Failed)
                continue;
            switch (op.Kind)
            {
                case IoOperationKind.JournalWrite:
                    Add(op);
                    break;
                case IoOperationKind.DataSync:
                    _syncOps.Add(op);
                    break;
                case IoOperationKind.DataFlush:
                    _flushOps.Add(op);
                    break;
            }
        }
    }

    private void Add(IoOperation op)
    {
        long sequence = long.Parse(Path.GetFileName(op.FilePath).AsSpan(0, 19), CultureInfo.InvariantCulture);
        if (!_files.TryGetValue(sequence, out var file))
            file = (new FileInfo(op.FilePath).Length, 0);
        file.Written += op.Bytes;
        _files[sequence] = file;
        _ends.Add((op.LastTransactionId, sequence, file.Written));
        LastEntryBytes = op.Bytes;
    }

    /// <summary>
    /// Journal bytes from the end of transaction <paramref name="synced"/>'s entry (the log's start if the ledger saw no
    /// entry up to it: nothing before it was written since the open) to the end of <paramref name="last"/>'s.
    /// </summary>
    public long BytesBetween(long synced, long last)
    {
        var (fromSequence, fromEnd) = PositionAfter(synced);
        var (toSequence, toEnd) = PositionAfter(last);
        if (toSequence <= fromSequence)
            return Math.Max(0, toEnd - fromEnd);
        long full = 0;
        foreach (var (sequence, file) in _files)
            if (sequence >= fromSequence && sequence < toSequence)
                full += file.Size;
        return Math.Max(0, full - fromEnd) + toEnd;
    }

    /// <summary>
    /// Journal bytes from the end of <paramref name="synced"/>'s entry to the end of the journal in service (the last
    /// written), and that journal's size: where the span will be when the log moves to a new journal.
    /// </summary>
    public (long Bytes, long JournalSize) BytesToEndOfJournalInService(long synced)
    {
        if (_ends.Count == 0)
            return (0, 0);
        long sequence = _ends[^1].Sequence, size = _files[sequence].Size;
        var (fromSequence, fromEnd) = PositionAfter(synced);
        if (sequence <= fromSequence)
            return (Math.Max(0, size - fromEnd), size);
        long full = 0;
        foreach (var (other, file) in _files)
            if (other >= fromSequence && other < sequence)
                full += file.Size;
        return (Math.Max(0, full - fromEnd) + size, size);
    }

    /// <summary>Bytes of the last journal write seen (0 before any): about what each commit adds to the span.</summary>
    public long LastEntryBytes { get; private set; }

    /// <summary>The flush that made the file current for <paramref name="transactionId"/> and the sync that recorded it, if seen.</summary>
    public (IoOperation? Flush, IoOperation? Sync) SyncOf(long transactionId)
    {
        IoOperation? flush = null, sync = null;
        foreach (var op in _flushOps)
            if (op.LastTransactionId == transactionId)
                flush = op;
        foreach (var op in _syncOps)
            if (op.LastTransactionId == transactionId)
                sync = op;
        return (flush, sync);
    }

    /// <summary>Forgets what no span from <paramref name="synced"/> on needs (positions before it, files before its file).</summary>
    public void ForgetBefore(long synced)
    {
        int index = IndexAtOrBefore(synced);
        if (index <= 0)
            return;
        long sequence = _ends[index].Sequence;
        _ends.RemoveRange(0, index);
        foreach (var old in _files.Keys.Where(s => s < sequence).ToArray())
            _files.Remove(old);
        _flushOps.RemoveAll(op => op.LastTransactionId < synced);
        _syncOps.RemoveAll(op => op.LastTransactionId < synced);
    }

    /// <summary>The journal position just past <paramref name="transactionId"/>'s entry: where a recovery from it starts reading.</summary>
    public (long Sequence, long End) PositionAfter(long transactionId)
    {
        int index = IndexAtOrBefore(transactionId);
        if (index >= 0)
            return (_ends[index].Sequence, _ends[index].End);
        return _files.Count == 0 ? (0, 0) : (_files.Keys.Min(), 0);
    }

    // The last write holding transactions up to transactionId (binary search: transactions grow along the log).
    private int IndexAtOrBefore(long transactionId)
    {
        int low = 0, high = _ends.Count - 1, found = -1;
        while (low <= high)
        {
            int middle = (low + high) / 2;
            if (_ends[middle].TransactionId <= transactionId)
            {
                found = middle;
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }
        return found;
    }
}
