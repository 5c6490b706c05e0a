using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Diagnostics;
using Cairn.Pal;
using Microsoft.Extensions.Logging;

namespace Cairn.Journal.Files;

/// <summary>
/// The environment's journal files: appends each commit's entry with one O_DIRECT|O_DSYNC write to the
/// active file, starts a new file (a recycled one when it can) when an entry does not fit, and deletes
/// or recycles files once a data-file sync covers them. The writer appends; the flusher releases;
/// a lock keeps the two apart (neither holds it long).
/// </summary>
internal sealed unsafe class WriteAheadJournal : IDisposable
{
    private const int MaxRecyclable = 2;

    private readonly string _directory;
    private readonly JournalSizing _sizing;
    private readonly IoStats _ioStats;
    private readonly ILogger _logger;
    private readonly TimeSpan _slowWrite;
    private readonly List<RetainedJournal> _retained;
    private readonly List<RecyclableJournal> _recyclable;
    private readonly Lock _gate = new();
    private byte* _zeroBlock;
    private JournalFile? _active;
    private long _nextSequence;
    private long _nextRecyclableNumber;
    private bool _warnedDirectFallback;
    private readonly bool _prepareSpares;
    private volatile bool _spareWanted;
    private long _spareCheckedFor = -1;
    private Task _spareTask = Task.CompletedTask;
    private int _spareRunning;
    private volatile bool _disposing;

    public WriteAheadJournal(string directory, JournalSizing sizing, IoStats ioStats, ILogger logger, TimeSpan slowWrite,
        long nextSequence, IEnumerable<RetainedJournal> retained, IEnumerable<RecyclableJournal> recyclable, long nextRecyclableNumber,
        bool prepareSpares = true)
    {
        _prepareSpares = prepareSpares;
        _spareWanted = prepareSpares;
        _directory = directory;
        _sizing = sizing;
        _ioStats = ioStats;
        _logger = logger;
        _slowWrite = slowWrite;
        _nextSequence = nextSequence;
        _retained = [.. retained];
        _recyclable = [.. recyclable];
        _nextRecyclableNumber = nextRecyclableNumber;
        _zeroBlock = (byte*)NativeMemory.AlignedAlloc(JournalEntryHeader.Alignment, JournalEntryHeader.Alignment);
        NativeMemory.Clear(_zeroBlock, JournalEntryHeader.Alignment);
    }

    public string DirectoryPath => _directory;

    /// <summary>Bytes of journal files on disk that recovery may have to read (the active one and those awaiting a sync).</summary>
    public long RetainedBytes
    {
        get
        {
            lock (_gate)
            {
                long bytes = _active?.Size ?? 0;
                foreach (var journal in _retained)
                    bytes += journal.Size;
                return bytes;
            }
        }
    }

    /// <summary>
    /// Writes one aligned entry durably and returns the position just past it. A full disk fails the
    /// append cleanly (<see cref="DiskFullException"/>: nothing of it can be replayed, the next append
    /// reuses its place); any other failure throws <see cref="JournalWriteFatalException"/>.
    /// </summary>
    public JournalPosition Append(byte* entry, long length, long firstTransactionId, long lastTransactionId, int transactionCount)
    {
        lock (_gate)
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
            // Once per file, when it passes half full: a spare that failed is not asked for again on every commit.
            if (_prepareSpares && _spareCheckedFor != journal.Sequence && journal.WritePosition * 2 >= journal.Size)
            {
                _spareCheckedFor = journal.Sequence;
                _spareWanted = SpareSizeWanted() > 0;
            }
            _ioStats.Record(IoOperationKind.JournalWrite, start, end, length, journal.FilePath,
                firstTransactionId, lastTransactionId, transactionCount);
            var elapsed = Stopwatch.GetElapsedTime(start, end);
            if (elapsed >= _slowWrite)
                Log.SlowJournalWrite(_logger, length, journal.FilePath, elapsed.TotalMilliseconds, firstTransactionId, lastTransactionId);
            return new JournalPosition(journal.Sequence, offset + length);
        }
    }

    /// <summary>
    /// Deletes (or keeps for reuse) every retired journal whose transactions are all at or below
    /// <paramref name="syncedTransactionId"/>; the active journal stays. Returns how many went each way.
    /// </summary>
    public (int Deleted, int Recycled) Release(long syncedTransactionId)
    {
        // Decide under the lock, touch the file system outside it: a rename syncs a directory, and the
        // writer must not wait for that to append its next entry.
        var releasing = new List<(RetainedJournal Journal, string? RecycleAs)>();
        lock (_gate)
        {
            int spareSlots = MaxRecyclable - _recyclable.Count;
            for (int i = 0; i < _retained.Count; i++)
            {
                var journal = _retained[i];
                if (journal.LastTransactionId > syncedTransactionId)
                    continue;
                _retained.RemoveAt(i--);
                bool recycle = spareSlots > 0 && journal.Size <= _sizing.MaxSize && journal.Size >= _sizing.InitialSize;
                if (recycle)
                    spareSlots--;
                releasing.Add((journal, recycle ? Path.Combine(_directory, JournalFileName.Recyclable(_nextRecyclableNumber++)) : null));
            }
        }
        int deleted = 0, recycled = 0;
        var kept = new List<RetainedJournal>();
        var spares = new List<RecyclableJournal>();
        foreach (var (journal, recycleAs) in releasing)
        {
            if (recycleAs is not null && TryRename(journal.FilePath, recycleAs))
            {
                spares.Add(new RecyclableJournal(recycleAs, journal.Size));
                recycled++;
            }
            else if (TryDeleteSynced(journal))
                deleted++;
            else
                kept.Add(journal); // tried again after the next sync
        }
        lock (_gate)
        {
            _recyclable.AddRange(spares);
            _retained.InsertRange(0, kept);
        }
        return (deleted, recycled);
    }

    /// <summary>At a clean close, after the final sync: nothing is left to replay, so every journal goes.</summary>
    public (int Deleted, int Recycled) ReleaseAll()
    {
        lock (_gate)
        {
            RetireActive();
        }
        return Release(long.MaxValue);
    }

    /// <summary>
    /// Whether the next switch has no spare file ready (the active journal is half full, or there is none
    /// yet): <see cref="RequestSpare"/> would start preparing one.
    /// </summary>
    public bool SpareWanted => _spareWanted;

    /// <summary>
    /// When <see cref="SpareWanted"/>, starts preparing the spare on a thread of its own (unless that is
    /// under way): pre-zeroing up to <see cref="JournalSizing.MaxSize"/> bytes takes long enough that
    /// neither a commit nor the flusher should wait for it. Happens about once per journal file.
    /// </summary>
    public void RequestSpare()
    {
        if (!_spareWanted || _disposing || Interlocked.CompareExchange(ref _spareRunning, 1, 0) != 0)
            return;
        _spareTask = Task.Factory.StartNew(static state => ((WriteAheadJournal)state!).RunSpare(), this,
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    private void RunSpare()
    {
        try
        {
            PrepareSpare();
        }
        finally
        {
            Volatile.Write(ref _spareRunning, 0);
        }
    }

    /// <summary>
    /// Creates and pre-zeroes the file the next switch will rename into place, so that a commit that
    /// fills the active journal pays for a rename, not for writing a file of zeros. A failure (a full
    /// disk, say) is logged and leaves the switch to create the file itself.
    /// </summary>
    private void PrepareSpare()
    {
        if (!_spareWanted || _disposing)
            return;
        long size;
        string path;
        lock (_gate)
        {
            size = SpareSizeWanted();
            _spareWanted = false;
            if (size == 0)
                return;
            path = Path.Combine(_directory, JournalFileName.Recyclable(_nextRecyclableNumber++));
        }
        try
        {
            // Allocated, written with zeros and synced. Its name need not be durable yet: the rename that
            // makes it a journal syncs the directory, and a spare lost in a crash is just not there.
            using (PalFile.OpenJournal(path, size))
            {
            }
        }
        catch (Exception e) when (e is PalIOException or IOException or UnauthorizedAccessException)
        {
            TryDelete(path);
            Log.JournalSpareNotPrepared(_logger, e, path, size);
            return;
        }
        lock (_gate)
        {
            _recyclable.Add(new RecyclableJournal(path, size));
        }
    }

    /// <summary>
    /// Under the lock: the size the next file is likely to need, or 0 if a spare of that size is ready or
    /// it is too early to tell. The fill time of the active file is projected from how far it has come.
    /// </summary>
    private long SpareSizeWanted()
    {
        long wanted;
        if (_active is null)
        {
            wanted = _sizing.NextSize(0, TimeSpan.Zero, 0);
        }
        else
        {
            if (_active.WritePosition * 2 < _active.Size)
                return 0;
            var elapsed = Stopwatch.GetElapsedTime(_active.CreatedTimestamp);
            var projected = elapsed * ((double)_active.Size / Math.Max(1, _active.WritePosition));
            wanted = _sizing.NextSize(_active.Size, projected, 0);
        }
        foreach (var spare in _recyclable)
            if (spare.Size >= wanted)
                return 0;
        return wanted;
    }

    private void SwitchFile(long entryLength)
    {
        long previousSize = 0;
        var fillTime = TimeSpan.Zero;
        if (_active is not null)
        {
            previousSize = _active.Size;
            fillTime = Stopwatch.GetElapsedTime(_active.CreatedTimestamp);
            RetireActive();
        }
        long size = _sizing.NextSize(previousSize, fillTime, entryLength);
        long sequence = _nextSequence;
        string path = Path.Combine(_directory, JournalFileName.For(sequence));
        string how;
        int spare = FindRecyclable(entryLength, size);
        try
        {
            if (spare >= 0)
            {
                // The spare's own size, even when the sizing asked for more: growing it here would write
                // zeros on the commit path, which is what spares are for avoiding. The next spare catches up.
                var recyclable = _recyclable[spare];
                PalFileSystem.RenameDurable(recyclable.FilePath, path);
                _recyclable.RemoveAt(spare);
                size = recyclable.Size;
                how = $"recycled from {Path.GetFileName(recyclable.FilePath)}";
                _active = JournalFile.Open(sequence, path, size);
            }
            else
            {
                how = "new, pre-zeroed";
                _active = JournalFile.Open(sequence, path, size);
                // The new name must survive a crash, or entries written into the file would be lost with it.
                // (A durable rename has already synced the directory.)
                PalFileSystem.SyncDirectory(_directory);
            }
        }
        catch
        {
            _active?.Dispose();
            _active = null;
            TryDelete(path);
            throw;
        }
        _nextSequence = sequence + 1;
        _spareWanted = _prepareSpares && SpareSizeWanted() > 0;
        Log.JournalCreated(_logger, path, size, how);
        if (_active.DirectIOFellBack && !_warnedDirectFallback)
        {
            _warnedDirectFallback = true;
            Log.JournalDirectIoFallback(_logger, path);
        }
    }

    /// <summary>A recycled file big enough for the entry, preferring one of the wanted size.</summary>
    private int FindRecyclable(long entryLength, long wantedSize)
    {
        int best = -1;
        for (int i = 0; i < _recyclable.Count; i++)
        {
            long size = _recyclable[i].Size;
            if (size < entryLength)
                continue;
            if (best < 0 || Math.Abs(size - wantedSize) < Math.Abs(_recyclable[best].Size - wantedSize))
                best = i;
        }
        return best;
    }

    private void RetireActive()
    {
        if (_active is null)
            return;
        _retained.Add(new RetainedJournal(_active.Sequence, _active.FilePath, _active.Size, _active.LastTransactionId));
        _active.Dispose();
        _active = null;
    }

    private static bool TryRename(string from, string to)
    {
        try
        {
            PalFileSystem.RenameDurable(from, to);
            return true;
        }
        catch (PalIOException)
        {
            return false;
        }
    }

    /// <summary>
    /// Deletes a journal the data file covers. A failure changes nothing that matters (recovery skips
    /// what the header says is synced), so it is logged and the file is tried again later.
    /// </summary>
    private bool TryDeleteSynced(RetainedJournal journal)
    {
        try
        {
            PalFileSystem.DeleteFile(journal.FilePath);
            return true;
        }
        catch (PalFileNotFoundException)
        {
            return true;
        }
        catch (PalIOException e)
        {
            Log.JournalNotDeleted(_logger, e, journal.FilePath);
            return false;
        }
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

    private static void TryDelete(string path)
    {
        try
        {
            if (File.Exists(path))
                PalFileSystem.DeleteFile(path);
        }
        catch (PalIOException)
        {
        }
    }

    /// <summary>Closes the active file without deleting anything (a clean close calls <see cref="ReleaseAll"/> first).</summary>
    public void Dispose()
    {
        _disposing = true;
        _spareTask.Wait(); // no file appears in the directory after the environment let go of it
        lock (_gate)
        {
            _active?.Dispose();
            _active = null;
            if (_zeroBlock != null)
            {
                NativeMemory.AlignedFree(_zeroBlock);
                _zeroBlock = null;
            }
        }
    }
}
