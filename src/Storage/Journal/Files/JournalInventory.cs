using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using Cairn.Diagnostics;
using Cairn.Pal;
using Microsoft.Extensions.Logging;

namespace Cairn.Journal.Files;

/// <summary>
/// Every file in the journal folder, and what becomes of it: hands the writer its next journal (a spare
/// renamed into place when one is ready, else a new pre-zeroed file, or for a large entry one not pre-zeroed), keeps full journals until a
/// data-file sync covers them, then deletes them or keeps a few to reuse, and sizes and keeps the spares
/// <see cref="SpareJournals"/> prepares ahead of a switch. The writer (<see cref="WriteAheadJournal"/>)
/// switches files, the flusher releases them, the spare thread adds spares; the bytes appended are the
/// writer's business.
/// </summary>
internal sealed partial class JournalInventory : IDisposable
{
    private const int MaxRecyclable = 2;

    private readonly string _directory;
    private readonly JournalSizing _sizing;
    private readonly ILogger _logger;

    // Guards the lists, the numbers and the file in service below. A switch holds it while it renames or
    // creates the next file (the flusher and the spare thread may wait for that; other appends wait on
    // the writer's own lock anyway), and Release lets go of it before it touches the file system. Taken
    // inside the writer's lock, never the other way round.
    private readonly Lock _gate = new();
    private readonly List<RetainedJournal> _retained;
    private readonly List<RecyclableJournal> _recyclable;
    private long _nextSequence;
    private long _nextRecyclableNumber;
    // The journal the writer appends to. The writer moves its write position without this lock, so the
    // fill read from it here (to size the next spare) may be an append behind.
    private JournalFile? _inService;
    // Files a branch of this journal group has an entry in but no name for yet: not released until it links them.
    private readonly Dictionary<string, int> _pinned = new(StringComparer.Ordinal);
    private bool _warnedDirectFallback;
    // Shipping retention (JournalRetention): journals a consumer has not acknowledged are kept past the sync, up to a bound.
    private readonly JournalRetention _retention;

    /// <param name="directory">The environment's <c>Journals/</c> directory.</param>
    /// <param name="sizing">How large new journal files are made.</param>
    /// <param name="files">What recovery found in <paramref name="directory"/>.</param>
    /// <param name="logger">Where file creation, recycling and the O_DIRECT fallback are logged.</param>
    /// <param name="retention">Whether and how far journals are kept past the sync for shipping consumers; null: not kept.</param>
    public JournalInventory(string directory, JournalSizing sizing, JournalFileSet files, ILogger logger, JournalRetention? retention = null)
    {
        _retention = retention ?? JournalRetention.None;
        _directory = directory;
        _sizing = sizing;
        _logger = logger;
        _retained = [.. files.Retained];
        _recyclable = [.. files.Recyclable];
        _nextSequence = files.NextSequence;
        _nextRecyclableNumber = files.NextRecyclableNumber;
    }

    public string DirectoryPath => _directory;

    /// <summary>
    /// Bytes of journal files on disk that recovery may have to read (the one in service and those awaiting a sync); not
    /// those kept only for a shipping consumer (<see cref="ShippingRetainedBytes"/>), which a bound of their own limits.
    /// </summary>
    public long RetainedBytes
    {
        get
        {
            lock (_gate)
            {
                long bytes = _inService?.Size ?? 0;
                foreach (var journal in _retained)
                    if (!HeldForShippingOnly(journal))
                        bytes += journal.Size;
                return bytes;
            }
        }
    }

    /// <summary>Bytes of synced journals kept only because a shipping consumer has not acknowledged them.</summary>
    public long ShippingRetainedBytes
    {
        get
        {
            lock (_gate)
            {
                long bytes = 0;
                foreach (var journal in _retained)
                    if (HeldForShippingOnly(journal))
                        bytes += journal.Size;
                return bytes;
            }
        }
    }

    // The last synced transaction Release was told of: retained journals at or below it are kept for shipping only.
    private long _synced = -1;

    private bool HeldForShippingOnly(RetainedJournal journal) => _retention.Enabled && journal.LastTransactionId <= _synced;

    /// <summary>The files as they stand (not counting the one in service), in the shape recovery hands them over.</summary>
    public JournalFileSet Snapshot()
    {
        lock (_gate)
            return new JournalFileSet(_nextSequence, [.. _retained], [.. _recyclable], _nextRecyclableNumber);
    }

    /// <summary>
    /// Opens the next journal, big enough for an entry of <paramref name="entryLength"/> bytes, then retires
    /// <paramref name="full"/> (the journal in service, if any). On failure (a full disk while pre-zeroing, say)
    /// no new file is left behind and <paramref name="full"/> stays in service; the next call tries again.
    /// </summary>
    public JournalFile OpenNext(JournalFile? full, long entryLength)
    {
        lock (_gate)
        {
            long previousSize = 0;
            var fillTime = TimeSpan.Zero;
            if (full is not null)
            {
                previousSize = full.Size;
                fillTime = Stopwatch.GetElapsedTime(full.CreatedTimestamp);
            }
            long size = _sizing.NextSize(previousSize, fillTime, entryLength);
            long sequence = _nextSequence;
            string path = Path.Combine(_directory, JournalFileName.For(sequence));
            string how;
            JournalFile? opened = null;
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
                    opened = JournalFile.Open(sequence, path, size);
                }
                else
                {
                    bool zeroed = !JournalSizing.WantsUnzeroedFile(entryLength);
                    how = zeroed ? "new, pre-zeroed" : "new, not pre-zeroed (for a large entry)";
                    opened = zeroed ? JournalFile.Open(sequence, path, size) : JournalFile.OpenUnzeroed(sequence, path, size);
                    // The new name must survive a crash, or entries written into the file would be lost with it.
                    // (A durable rename has already synced the directory.)
                    PalFileSystem.SyncDirectory(_directory);
                }
            }
            catch
            {
                opened?.Dispose();
                BestEffortFiles.TryDelete(path);
                throw;
            }
            if (full is not null)
                RetireLocked(full);
            _nextSequence = sequence + 1;
            _inService = opened;
            Log.JournalCreated(_logger, path, size, how);
            if (opened.DirectIOFellBack && !_warnedDirectFallback)
            {
                _warnedDirectFallback = true;
                Log.JournalDirectIoFallback(_logger, path);
            }
            return opened;
        }
    }

    /// <summary>
    /// Retires <paramref name="current"/> (the journal in service, if any) and puts in service this
    /// environment's name for <paramref name="rootFile"/>, a journal group root's file that now holds one of
    /// its entries: a new hard link under the next sequence number, made durable (the directory is synced)
    /// before the entry is acknowledged. If the last journal kept here already is that file (the environment
    /// was reopened while its root still writes the same file), that name goes back in service instead, so
    /// recovery never reads the file twice. Throws <see cref="PalIOException"/> if the link cannot be made
    /// (another file system, a file at its link limit), and <see cref="JournalLinkRefusedException"/> if an
    /// older journal here is the same file; the journal in service is then retired all the same.
    /// </summary>
    public JournalFile OpenLinked(JournalFile? current, string rootFile, long size)
    {
        lock (_gate)
        {
            if (current is not null)
                RetireLocked(current);
            int same = _retained.FindLastIndex(r => PalFileSystem.SameFile(r.FilePath, rootFile));
            if (same >= 0 && same != _retained.Count - 1)
                throw new JournalLinkRefusedException(rootFile, _retained[same].FilePath);
            JournalFile linked;
            if (same >= 0)
            {
                var kept = _retained[same];
                _retained.RemoveAt(same);
                linked = JournalFile.Linked(kept.Sequence, kept.FilePath, size);
                if (kept.LastTransactionId >= 0)
                    linked.NoteTransactions(kept.LastTransactionId, kept.LastTransactionId);
            }
            else
            {
                long sequence = _nextSequence;
                string path = Path.Combine(_directory, JournalFileName.For(sequence));
                PalFileSystem.HardLink(rootFile, path);
                _nextSequence = sequence + 1;
                linked = JournalFile.Linked(sequence, path, size);
                Log.JournalLinked(_logger, path, rootFile);
            }
            _inService = linked;
            return linked;
        }
    }

    /// <summary>Keeps <paramref name="path"/> from being released until as many <see cref="Unpin"/> calls.</summary>
    public void Pin(string path)
    {
        lock (_gate)
            _pinned[path] = _pinned.GetValueOrDefault(path) + 1;
    }

    public void Unpin(string path)
    {
        lock (_gate)
        {
            if (_pinned[path] == 1)
                _pinned.Remove(path);
            else
                _pinned[path]--;
        }
    }

    /// <summary>Closes <paramref name="journal"/> for good (a clean close); it is kept until a sync covers it.</summary>
    public void Retire(JournalFile journal)
    {
        lock (_gate)
            RetireLocked(journal);
    }

    private void RetireLocked(JournalFile journal)
    {
        _retained.Add(new RetainedJournal(journal.Sequence, journal.FilePath, journal.SizeOnDisk, journal.LastTransactionId));
        journal.Dispose();
        if (ReferenceEquals(_inService, journal))
            _inService = null;
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

    /// <summary>The shipping retention's bound and what consumers have acknowledged.</summary>
    public JournalRetention Retention => _retention;

    /// <summary>
    /// Pins every journal that may hold entries (the retained ones in log order, then the one in service) for a
    /// read: none of them is released, recycled or dropped until <see cref="Unpin"/> for each.
    /// </summary>
    public List<PinnedJournal> PinForReading()
    {
        lock (_gate)
        {
            var pinned = new List<PinnedJournal>(_retained.Count + 1);
            foreach (var journal in _retained)
                pinned.Add(new PinnedJournal(journal.Sequence, journal.FilePath, journal.LastTransactionId));
            if (_inService is { } active)
                pinned.Add(new PinnedJournal(active.Sequence, active.FilePath, active.LastTransactionId));
            pinned.Sort((a, b) => a.Sequence.CompareTo(b.Sequence));
            foreach (var journal in pinned)
                _pinned[journal.Path] = _pinned.GetValueOrDefault(journal.Path) + 1;
            return pinned;
        }
    }

    /// <summary>
    /// Deletes (or keeps for reuse) every retired journal whose transactions are all at or below
    /// <paramref name="syncedTransactionId"/> and, under shipping retention, acknowledged by the consumer, or
    /// dropped because the retained bytes are past the bound; the journal in service stays. Returns how many
    /// went each way (with <paramref name="keepSpares"/> false, a checkpoint short of space: all deleted).
    /// </summary>
    public (int Deleted, int Recycled) Release(long syncedTransactionId, bool keepSpares = true)
    {
        // Decide under the lock, touch the file system outside it: a rename syncs a directory, and a
        // switch must not wait for that.
        var releasing = new List<(RetainedJournal Journal, string? RecycleAs)>();
        lock (_gate)
        {
            int spareSlots = keepSpares ? MaxRecyclable - _recyclable.Count : 0;
            if (syncedTransactionId != long.MaxValue)
                _synced = Math.Max(_synced, syncedTransactionId);
            long releasable = _retention.ReleasableUpTo(syncedTransactionId, _retained, _pinned.ContainsKey, _logger, _directory);
            for (int i = 0; i < _retained.Count; i++)
            {
                var journal = _retained[i];
                if (journal.LastTransactionId > releasable || _pinned.ContainsKey(journal.FilePath))
                    continue;
                _retained.RemoveAt(i--);
                // Shared when recovery found it so (it may keep a torn tail's unacknowledged entries, which a
                // recovery of the file's next life could read) or when another name links it now.
                bool recycle = spareSlots > 0 && journal.Size <= _sizing.MaxSize && journal.Size >= _sizing.InitialSize
                    && !journal.Shared && !IsShared(journal.FilePath);
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
            if (recycleAs is not null && BestEffortFiles.TryRename(journal.FilePath, recycleAs))
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

    /// <summary>Hands over (and forgets) the files kept for reuse: a checkpoint short of disk space deletes them.</summary>
    public List<RecyclableJournal> TakeRecyclable()
    {
        lock (_gate)
        {
            var taken = new List<RecyclableJournal>(_recyclable);
            _recyclable.Clear();
            return taken;
        }
    }

    /// <summary>
    /// Whether another name links the file (a journal group's root and branches share files): such a file is
    /// only ever deleted, never reused, since the others may still read it. Unknown counts as shared.
    /// </summary>
    private static bool IsShared(string path)
    {
        try
        {
            return PalFileSystem.LinkCount(path) > 1;
        }
        catch (PalIOException)
        {
            return true;
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

    /// <summary>Closes the journal in service, deleting nothing.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _inService?.Dispose();
            _inService = null;
        }
    }
}
