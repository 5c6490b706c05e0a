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
internal sealed unsafe class WriteAheadJournal : IDisposable
{
    private readonly JournalInventory _inventory;
    private readonly SpareJournals _spares;
    private readonly IoStats _ioStats;
    private readonly ILogger _logger;
    private readonly TimeSpan _slowWrite;

    // Guards the journal in service and the zero block: appends go one at a time, and a clean close
    // retires the journal only between two of them.
    private readonly Lock _appendLock = new();
    private JournalFile? _active;
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

    /// <inheritdoc cref="SpareJournals.Request"/>
    public void RequestSpare() => _spares.Request();

    /// <inheritdoc cref="JournalInventory.Release"/>
    public (int Deleted, int Recycled) Release(long syncedTransactionId) => _inventory.Release(syncedTransactionId);

    /// <summary>
    /// Writes one aligned entry durably and returns the position just past it. A full disk fails the
    /// append cleanly (<see cref="DiskFullException"/>: nothing of it can be replayed, the next append
    /// reuses its place; when it is the next journal that found the disk full, no file is left of it
    /// and the next append tries again); any other failure of the write throws
    /// <see cref="JournalWriteFatalException"/>.
    /// </summary>
    public JournalPosition Append(byte* entry, long length, long firstTransactionId, long lastTransactionId, int transactionCount)
    {
        lock (_appendLock)
        {
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
            long end = Stopwatch.GetTimestamp();
            _spares.NoteAppended(journal);
            _ioStats.Record(IoOperationKind.JournalWrite, start, end, length, journal.FilePath,
                firstTransactionId, lastTransactionId, transactionCount);
            var elapsed = Stopwatch.GetElapsedTime(start, end);
            if (elapsed >= _slowWrite)
                Log.SlowJournalWrite(_logger, length, journal.FilePath, elapsed.TotalMilliseconds, firstTransactionId, lastTransactionId);
            return new JournalPosition(journal.Sequence, offset + length);
        }
    }

    private void SwitchFile(long entryLength)
    {
        var full = _active;
        _active = null; // retired by the inventory even when the next file cannot be opened
        _active = _inventory.OpenNext(full, entryLength);
        _spares.NoteSwitched();
    }

    /// <summary>
    /// After a failed write, zeros the entry's first block so that whatever part of it reached the disk
    /// can never be replayed; the next append writes over it. False if even that fails.
    /// </summary>
    private bool TryWipe(JournalFile journal, long offset)
    {
        try
        {
            journal.ZeroBlock(_zeroBlock, offset, JournalEntryHeader.Alignment);
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
