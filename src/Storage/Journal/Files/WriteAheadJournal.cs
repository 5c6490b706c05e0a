using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Diagnostics;
using Cairn.Pal;
using Microsoft.Extensions.Logging;

namespace Cairn.Journal.Files;

/// <summary>
/// The journal's append path: writes each commit's entry with one O_DIRECT|O_DSYNC write to the journal
/// in service, and asks the <see cref="JournalInventory"/> for the next one when an entry does not fit.
/// Which files exist, which are kept and which are reused is the inventory's business, preparing spares
/// is <see cref="SpareJournals"/>'; the members that reach them from here are there so that the
/// environment holds one journal object.
/// </summary>
internal sealed unsafe partial class WriteAheadJournal : IJournalAppender, IDisposable
{
    private readonly JournalInventory _inventory;
    private readonly SpareJournals _spares;
    private readonly IoStats _ioStats;
    private readonly ILogger _logger;
    private readonly TimeSpan _slowWrite;

    // Guards the journal in service, the zero block and the group writes in flight (WriteAheadJournal.GroupWrites):
    // an append, a group write's claim and its settling go one at a time, and a clean close retires the journal
    // only between two of them. A Monitor, not a Lock: group writers wait on it for their turn to settle.
    private readonly object _appendLock = new();
    private JournalFile? _active;
    // The root's journal file that _active names, when _active is a link (this environment is a branch).
    private JournalFile? _linkedTo;
    private byte* _zeroBlock;

    public WriteAheadJournal(JournalInventory inventory, SpareJournals spares, IoStats ioStats, ILogger logger, TimeSpan slowWrite)
    {
        _inventory = inventory;
        _spares = spares;
        _ioStats = ioStats;
        _logger = logger;
        _slowWrite = slowWrite;
        _zeroBlock = (byte*)NativeMemory.AlignedAlloc(JournalEntryHeader.Alignment, JournalEntryHeader.Alignment);
        NativeMemory.Clear(_zeroBlock, JournalEntryHeader.Alignment);
    }

    public string DirectoryPath => _inventory.DirectoryPath;

    /// <inheritdoc cref="JournalInventory.RetainedBytes"/>
    public long RetainedBytes => _inventory.RetainedBytes;

    /// <summary>The sizes of the full journals kept (not the one in service) with a sequence in [<paramref name="fromSequence"/>, <paramref name="belowSequence"/>).</summary>
    public long FileBytesBetween(long fromSequence, long belowSequence)
    {
        long bytes = 0;
        foreach (var journal in _inventory.Snapshot().Retained)
            if (journal.Sequence >= fromSequence && journal.Sequence < belowSequence)
                bytes += journal.Size;
        return bytes;
    }

    /// <inheritdoc cref="SpareJournals.Request"/>
    public void RequestSpare() => _spares.Request();

    /// <inheritdoc cref="JournalInventory.Release"/>
    public (int Deleted, int Recycled) Release(long syncedTransactionId, bool keepSpares = true) => _inventory.Release(syncedTransactionId, keepSpares);

    /// <summary>
    /// Deletes the files kept for reuse (recycled journals and prepared spares): a checkpoint short of disk space needs
    /// their room more than the next switch needs them.
    /// </summary>
    public void DeleteSpares()
    {
        foreach (var spare in _inventory.TakeRecyclable())
            BestEffortFiles.TryDelete(spare.FilePath);
    }

    /// <summary>
    /// The sync points at the ends of the journals kept (not the one in service) whose last transaction of
    /// <paramref name="environmentId"/> is above <paramref name="after"/> and below <paramref name="before"/>, in log order.
    /// </summary>
    public List<SyncPoint> RetainedEnds(Guid environmentId, long after, long before)
        => JournalEnds.Between(_inventory.Snapshot().Retained, environmentId, after, before);

    /// <summary>
    /// Writes one aligned entry durably and returns the position just past it. A full disk fails the
    /// append cleanly (<see cref="DiskFullException"/>: nothing of it can be replayed, the next append
    /// reuses its place; when it is the next journal that found the disk full, no file is left of it,
    /// the journal in service stays in service, and the next append tries again); any other failure of the write throws
    /// <see cref="JournalWriteFatalException"/>.
    /// </summary>
    public JournalPosition Append(byte* entry, long length, long firstTransactionId, long lastTransactionId, int transactionCount)
    {
        lock (_appendLock)
        {
            WaitForGroupWrites();
            if (_active is null || !_active.Fits(length))
                SwitchFile(length);
            var journal = _active!;
            long offset = journal.WritePosition;
            long start = Stopwatch.GetTimestamp();
            try
            {
                journal.Append(entry, length, firstTransactionId, lastTransactionId);
            }
            catch (PalIOException e)
            {
                _ioStats.Record(IoOperationKind.JournalWrite, start, Stopwatch.GetTimestamp(), length, journal.FilePath,
                    firstTransactionId, lastTransactionId, transactionCount, failed: true);
                if (e is DiskFullException && TryWipe(journal, offset))
                    throw;
                throw new JournalWriteFatalException(journal.FilePath, offset, e);
            }
            NoteWritten(journal, start, Stopwatch.GetTimestamp(), length, firstTransactionId, lastTransactionId, transactionCount, environmentCount: 1);
            return new JournalPosition(journal.Sequence, offset + length);
        }
    }

    /// <summary>After a durable write: the spares learn how full the journal is, the write is recorded, and logged if slow.</summary>
    private void NoteWritten(JournalFile journal, long start, long end, long bytes, long firstTransactionId, long lastTransactionId,
        int transactionCount, int environmentCount, IReadOnlyList<string>? environments = null)
    {
        _spares.NoteAppended(journal);
        _ioStats.RecordCarrying(IoOperationKind.JournalWrite, start, end, bytes, journal.FilePath, firstTransactionId, lastTransactionId,
            transactionCount, failed: false, environmentCount, environments);
        var elapsed = Stopwatch.GetElapsedTime(start, end);
        if (elapsed >= _slowWrite)
            Log.SlowJournalWrite(_logger, bytes, journal.FilePath, elapsed.TotalMilliseconds, firstTransactionId, lastTransactionId);
    }

    /// <inheritdoc cref="JournalInventory.PinForReading"/>
    public List<PinnedJournal> PinForReading() => _inventory.PinForReading();

    /// <summary>Lets a journal pinned by <see cref="PinForReading"/> go again.</summary>
    public void UnpinPath(string path) => _inventory.Unpin(path);

    /// <inheritdoc cref="JournalInventory.ShippingRetainedBytes"/>
    public long ShippingRetainedBytes => _inventory.ShippingRetainedBytes;

    /// <inheritdoc cref="JournalInventory.Retention"/>
    public JournalRetention Retention => _inventory.Retention;

    /// <summary>A branch has recorded (linked, or failed to link) its entry in <paramref name="file"/>: the file may be released again.</summary>
    public void Unpin(JournalFile file) => _inventory.Unpin(file.FilePath);

    /// <summary>
    /// On a branch, from its root's group write: records that this environment's entry of transaction
    /// <paramref name="transactionId"/> ends at <paramref name="end"/> in <paramref name="rootFile"/>, linking
    /// that file into this environment's folder first if it is not the linked journal in service. Returns the
    /// entry's position in this environment's numbering. Throws if the file cannot be linked (the entry then
    /// goes to this environment's own journal).
    /// </summary>
    public JournalPosition RecordLinked(JournalFile rootFile, long end, long transactionId)
    {
        lock (_appendLock)
        {
            if (_active is null || !ReferenceEquals(_linkedTo, rootFile))
            {
                var current = _active;
                _active = null;
                _linkedTo = null;
                _active = _inventory.OpenLinked(current, rootFile.FilePath, rootFile.Size);
                _linkedTo = rootFile;
            }
            _active.NoteLinkedEntry(end, transactionId);
            return new JournalPosition(_active.Sequence, end);
        }
    }

    JournalPosition IJournalAppender.Append(byte* entry, long length, long transactionId)
        => Append(entry, length, transactionId, transactionId, transactionCount: 1);

    /// <summary>One write for all of them, each entry stamped with its offset in it.</summary>
    public void AppendEntries(byte* entries, ReadOnlySpan<long> lengths, long firstTransactionId, Span<JournalPosition> ends)
    {
        long total = 0;
        foreach (long length in lengths)
        {
            JournalEntryHeader.StampWrite(entries + total, Guid.Empty, total);
            total += length;
        }
        var end = Append(entries, total, firstTransactionId, firstTransactionId + lengths.Length - 1, lengths.Length);
        long offset = end.EndOffset - total;
        for (int i = 0; i < lengths.Length; i++)
        {
            offset += lengths[i];
            ends[i] = end with { EndOffset = offset };
        }
    }

    /// <summary>The journal in service, if any: where a group write would go next (read without the lock: a hint).</summary>
    public JournalFile? ActiveFile => Volatile.Read(ref _active);

    /// <summary>
    /// Puts the next journal in service. If it cannot be opened (a full disk), the one in service stays in service:
    /// a smaller entry still fits there, and the next switch tries again.
    /// </summary>
    private void SwitchFile(long entryLength)
    {
        var next = _inventory.OpenNext(_active, entryLength);
        _active = next;
        _linkedTo = null;
        _spares.NoteSwitched();
    }

    /// <summary>
    /// After a failed write, zeros the entry's first block (or cuts an unzeroed journal back to it) so that whatever
    /// part of it reached the disk can never be replayed; the next append writes over it. False if even that fails.
    /// </summary>
    private bool TryWipe(JournalFile journal, long offset)
    {
        try
        {
            journal.Unwrite(_zeroBlock, offset);
            return true;
        }
        catch (PalIOException)
        {
            return false;
        }
    }

    /// <summary>At a clean close, after the final sync: nothing is left to replay, so every journal goes.</summary>
    public (int Deleted, int Recycled) ReleaseAll()
    {
        lock (_appendLock)
        {
            if (_active is not null)
                _inventory.Retire(_active);
            _active = null;
        }
        return _inventory.Release(long.MaxValue);
    }

    /// <summary>Closes the journal in service without deleting anything (a clean close calls <see cref="ReleaseAll"/> first).</summary>
    public void Dispose()
    {
        _spares.Dispose(); // no file appears in the folder after the environment let go of it
        lock (_appendLock)
        {
            _inventory.Dispose();
            _active = null;
            if (_zeroBlock != null)
            {
                NativeMemory.AlignedFree(_zeroBlock);
                _zeroBlock = null;
            }
        }
    }
}
