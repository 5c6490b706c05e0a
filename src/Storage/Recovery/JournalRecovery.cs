using System.Diagnostics;
using System.Runtime.CompilerServices;
using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Paging;
using Microsoft.Extensions.Logging;

namespace Cairn.Recovery;

/// <summary>
/// Replays, at open, every journal entry the data file lacks: from the position the file header
/// records (just past the last synced transaction), in journal order, requiring each entry of this
/// environment to be its next transaction with valid hashes. Valid entries of other environments (a
/// root's journal shared with its branches) are stepped over; a journal read from its start with
/// entries of others only, none of them written by this environment, is another environment's and
/// throws. The log ends at an empty (zero) block, at a stale entry of a recycled file, or at an invalid
/// entry of any environment; an invalid entry with a valid later one of this generation anywhere after
/// it is damage, not a torn tail, and throws <see cref="JournalCorruptionException"/> naming the journal
/// and offset. A torn tail is logged and cut off, so nothing stale after it can ever be read as part of
/// the log, except in a file with other names (shared with other environments), which is left as it is.
/// A read-only recovery (a read-only open) changes no file: it deletes, cuts and spills nothing, keeps every
/// rebuilt page in memory, and reports a torn tail (<see cref="RecoveryResult.TornTail"/>) instead of cutting it off.
/// </summary>
/// <remarks>
/// Two threads (issue 29 item 9): this one reads, validates every entry whole (header, hashes, every page record and
/// diff op: <see cref="JournalEntryReader.Check"/>), decides which to apply, and scans past each log end; a
/// <see cref="ReplayApplier"/> applies the checked entries meanwhile, in journal order (<see cref="ReplayPipeline"/>).
/// Nothing on disk is cut or deleted until both are done: a torn tail is cut, and the journals after it deleted, only
/// once every entry before it was applied and every scan has judged, as when one thread did everything.
/// </remarks>
internal sealed unsafe partial class JournalRecovery : IDisposable
{
    private readonly string _directory;
    private readonly FileHeader _header;
    private readonly ILogger _logger;
    private readonly RecoveredPages _pages;
    // Checks entries whole on this (the reading) thread; the applier has a reader of its own.
    private readonly JournalEntryReader _checker = new();
    private readonly ReplayPipeline _pipeline;
    // Reads every chunk into a batch of the pipeline's, so checked entries stay valid until the applier is done with them.
    private readonly JournalReadWindow _window;
    // Scans that read a file's first entry only (whether the next journal continues the log).
    private readonly JournalReadWindow _scanWindow = new(readAhead: false);
    // The scan of everything after the log's end (up to a whole pre-zeroed journal): read ahead like the replay, or a
    // cold open waits on each of its reads.
    private readonly JournalReadWindow _tailWindow = new(readAhead: true);
    private readonly List<(long Sequence, string Path)> _journals = [];
    private readonly List<RetainedJournal> _retained = [];
    private readonly List<RecyclableJournal> _recyclable = [];
    private long _expected;
    private long _highestSequence;
    private long _highestRecyclable;
    private long _replayed;
    private JournalEntryHeader? _lastEntry;
    private JournalPosition _position;
    // Shipping retention is on: journals the header says are synced stay (a consumer may not have taken them yet).
    private readonly bool _keepSynced;
    // A read-only open: no file is deleted, cut or written.
    private readonly bool _readOnly;
    private TornJournalTail? _tornTail;
    // A torn tail to cut off once the replay is done (cutting waits for the applier: an apply failure changes nothing).
    private PendingTailCut? _pendingCut;
    private ReplayStageClock _stages;

    private JournalRecovery(string directory, FileHeader header, DataFile dataFile, ScratchAllocator scratch, long budgetBytes, ILogger logger,
        bool keepSynced, bool readOnly, ReplayBuffers buffers)
    {
        _keepSynced = keepSynced;
        _readOnly = readOnly;
        _directory = directory;
        _header = header;
        _logger = logger;
        _pages = new RecoveredPages(dataFile, scratch, budgetBytes, mayWriteDataFile: !readOnly);
        _pipeline = new ReplayPipeline(_pages, buffers);
        _window = new JournalReadWindow(readAhead: true, _pipeline, buffers.ChunkBytes);
        _expected = header.LastTransactionId + 1;
        _position = new JournalPosition(header.JournalSequence, header.JournalOffset);
        _highestSequence = header.JournalSequence;
    }

    /// <summary>
    /// Runs recovery over the journals in <paramref name="directory"/> for the data file whose header is
    /// <paramref name="header"/>. Rebuilt pages stay in scratch memory up to <paramref name="budgetBytes"/>
    /// and are written to the data file beyond that. <paramref name="keepSynced"/> (shipping retention): journals before the
    /// header's position are kept, never read, and handed over as retained, holding transactions up to the header's.
    /// <paramref name="readOnly"/>: nothing on disk changes, and recovery needing more memory than <paramref name="budgetBytes"/>
    /// throws <see cref="ReadOnlyOpenRefusedException"/>. <paramref name="buffers"/>: <see cref="ReplayBuffers.Default"/> unless a test says.
    /// </summary>
    public static RecoveryResult Run(string directory, FileHeader header, DataFile dataFile, ScratchAllocator scratch, long budgetBytes, ILogger logger,
        bool keepSynced = false, bool readOnly = false, ReplayBuffers? buffers = null)
    {
        using var recovery = new JournalRecovery(directory, header, dataFile, scratch, budgetBytes, logger, keepSynced, readOnly,
            buffers ?? ReplayBuffers.Default);
        return recovery.Run();
    }

    private RecoveryResult Run()
    {
        long started = Stopwatch.GetTimestamp();
        List<string> obsolete = ListDirectory();
        var candidates = _journals.Where(j => j.Sequence >= _header.JournalSequence).ToList();
        if (candidates.Count > 0)
            Log.RecoveryStarting(_logger, _directory, _header.LastTransactionId, candidates.Count, Path.GetFileName(candidates[0].Path),
                candidates[0].Sequence == _header.JournalSequence ? _header.JournalOffset : 0);

        PrefetchWhole(candidates);
        int tornIn = -1;
        Exception? readFailure = null;
        try
        {
            for (int k = 0; k < candidates.Count; k++)
            {
                if (!ReplayJournal(candidates, k))
                {
                    tornIn = k;
                    break;
                }
                Log.RecoveryProgress(_logger, Path.GetFileName(candidates[k].Path), _replayed, _window.BytesRead);
            }
        }
        catch (Exception e)
        {
            readFailure = e;
        }
        // Every entry handed over before a failure of the reader was valid and is applied, as one thread applied it
        // before meeting the failure: so a failure of the applier (on an earlier entry) is the one thrown, as it was.
        long draining = ReplayStageClock.Now;
        _pipeline.Finish();
        _stages.DrainTicks = ReplayStageClock.Now - draining;
        if (readFailure is not null)
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(readFailure);

        // Only now, every entry applied and every scan done, does anything on disk change.
        if (tornIn >= 0 && !_readOnly)
        {
            _pendingCut?.Cut(_logger);
            // A torn tail: whatever follows holds nothing of this generation (checked), so it goes
            // (only this environment's name of it: a file shared with others stays theirs).
            for (int later = tornIn + 1; later < candidates.Count; later++)
                PalFileSystem.DeleteFile(candidates[later].Path);
        }

        // Journals before the synced position hold only what the data file has; they can go now that recovery succeeded
        // (unless kept for shipping: then they come first in the retained list, synced up to the header's transaction).
        if (_keepSynced)
        {
            var kept = obsolete.Select(path => (Sequence: JournalFileName.TryParse(Path.GetFileName(path), out long s) ? s : 0, Path: path))
                .OrderBy(j => j.Sequence)
                .Select(j => new RetainedJournal(j.Sequence, j.Path, new FileInfo(j.Path).Length, _header.LastTransactionId,
                    PalFileSystem.LinkCount(j.Path) > 1));
            _retained.InsertRange(0, kept);
        }
        else if (!_readOnly)
        {
            foreach (var path in obsolete)
                PalFileSystem.DeleteFile(path);
            if (obsolete.Count > 0)
                Log.ObsoleteJournalsDeleted(_logger, obsolete.Count);
        }

        long lastTransaction = _expected - 1;
        int runs = _pages.RunCount;
        long completing = ReplayStageClock.Now;
        var pages = _pages.Complete(lastTransaction);
        _stages.CompleteTicks = ReplayStageClock.Now - completing;
        var elapsed = Stopwatch.GetElapsedTime(started);
        _stages.ReaderWaitTicks = _pipeline.ReaderWaitTicks;
        _stages.ApplyTicks = _pipeline.ApplyTicks;
        _stages.ApplierWaitTicks = _pipeline.ApplierWaitTicks;
        if (_replayed > 0)
        {
            Log.RecoveryCompleted(_logger, _replayed, lastTransaction - _replayed + 1, lastTransaction, _window.BytesRead, runs, _pages.Spills,
                elapsed.TotalMilliseconds, _window.BytesRead / 1e6 / Math.Max(elapsed.TotalSeconds, 1e-9));
            _stages.Report(_logger);
        }
        return new RecoveryResult
        {
            LastTransactionId = lastTransaction,
            FirstReplayedTransactionId = _replayed > 0 ? lastTransaction - _replayed + 1 : 0,
            TransactionsReplayed = _replayed,
            LastEntry = _lastEntry,
            Position = _position,
            Pages = pages,
            Journals = new JournalFileSet(_highestSequence + 1, _retained, _recyclable, _highestRecyclable + 1),
            JournalBytesRead = _window.BytesRead,
            DistinctPageRuns = runs,
            Spills = _pages.Spills,
            Elapsed = elapsed,
            TornTail = _tornTail,
        };
    }

    // What the whole-file prefetch asks the OS to read at most: the journals a recovery objective lets pile up, with room.
    private const long MaxPrefetchBytes = 2L << 30;

    /// <summary>
    /// Asks the OS to read every journal to replay, whole, in the background (POSIX_FADV_WILLNEED on each file, in log
    /// order, up to <see cref="MaxPrefetchBytes"/>): the replay is bound by applying entries, so a cold disk can deliver
    /// all of it meanwhile, including the rest of the last journal (pre-zeroed, up to a whole file), which the scan after
    /// the log's end reads only once the replay is done and would otherwise wait for (issue 27, item 3). Nothing is
    /// skipped: every byte is still read and checked as before; this changes only when the disk reads it.
    /// </summary>
    private static void PrefetchWhole(List<(long Sequence, string Path)> journals)
    {
        long left = MaxPrefetchBytes;
        foreach (var (_, path) in journals)
        {
            using var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
            long size = file.GetSize();
            if (size > left)
                return;
            file.Prefetch(0, size);
            left -= size;
        }
    }

    /// <summary>Finds journals (sorted) and recyclable files; returns the journals the header says are fully synced.</summary>
    private List<string> ListDirectory()
    {
        var obsolete = new List<string>();
        // Journals/ is made before the data file, so only a user removes it; a read-only open finds no journals there.
        if (_readOnly && !Directory.Exists(_directory))
            return obsolete;
        foreach (var path in Directory.EnumerateFiles(_directory))
        {
            string name = Path.GetFileName(path);
            if (JournalFileName.TryParse(name, out long sequence))
            {
                _highestSequence = Math.Max(_highestSequence, sequence);
                if (sequence < _header.JournalSequence)
                    obsolete.Add(path);
                else
                    _journals.Add((sequence, path));
            }
            else if (JournalFileName.TryParseRecyclable(name, out long number))
            {
                _highestRecyclable = Math.Max(_highestRecyclable, number);
                _recyclable.Add(new RecyclableJournal(path, new FileInfo(path).Length));
            }
        }
        _journals.Sort((a, b) => a.Sequence.CompareTo(b.Sequence));
        return obsolete;
    }

    /// <summary>Replays one journal. False when it ended in a torn tail (recovery stops there).</summary>
    // Runs once per open, so tiered compilation would leave its loop in unoptimized code for most of a replay.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool ReplayJournal(List<(long Sequence, string Path)> journals, int index)
    {
        var (sequence, path) = journals[index];
        long lastHere = -1;
        bool appliedHere = false;
        var owners = new EntryOwners(_header.EnvironmentId);
        long start, offset;
        JournalEntryValidation end;
        using (var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential))
        {
            _window.Reset(file);
            start = offset = sequence == _header.JournalSequence ? Math.Min(_header.JournalOffset, _window.FileSize) : 0;
            while (true)
            {
                long reading = ReplayStageClock.Now;
                var validation = _window.Validate(offset, out byte* entry);
                _stages.ReadTicks += ReplayStageClock.Now - reading;
                if (validation.Problem == JournalEntryProblem.UnsupportedVersion)
                    throw UnsupportedVersion(path, validation);
                if (!validation.IsValid)
                {
                    end = validation;
                    break;
                }
                var header = validation.Header;
                if (!owners.IsOwn(header))
                {
                    offset += validation.EntrySize; // another environment's entry in a shared journal: no part of this log
                    continue;
                }
                long transaction = header.TransactionId;
                if (transaction < _expected)
                {
                    if (appliedHere)
                    {
                        end = validation; // a stale entry of the file's earlier life: the log ends here
                        break;
                    }
                    if (transaction > _header.LastTransactionId)
                        throw new JournalCorruptionException(path, offset, transaction,
                            $"transaction {transaction} was already replayed from an earlier journal (expected {_expected})");
                    lastHere = Math.Max(lastHere, transaction); // synced already
                    offset += validation.EntrySize;
                    continue;
                }
                if (transaction > _expected)
                    throw new JournalCorruptionException(path, offset, transaction,
                        $"transaction {_expected} is missing: the log jumps from {_expected - 1} to {transaction} (a journal file is missing or was cut short)");
                long checking = ReplayStageClock.Now;
                try
                {
                    _checker.Check(entry, validation);
                }
                catch (JournalCorruptionException e)
                {
                    throw e.InFile(path);
                }
                _pipeline.Add(path, entry, validation);
                _stages.CheckTicks += ReplayStageClock.Now - checking;
                _lastEntry = header;
                _expected++;
                _replayed++;
                appliedHere = true;
                lastHere = transaction;
                offset += validation.EntrySize;
                _position = new JournalPosition(sequence, offset);
            }
            // The applier gets this journal's last entries now, not after the scans below.
            _window.Forget();
            _pipeline.HandOverCurrent();
        }

        if (start == 0)
            ThrowIfAnotherEnvironmentsJournal(path, owners);
        else if (_keepSynced)
            lastHere = Math.Max(lastHere, _header.LastTransactionId); // entries before the header's position, kept for shipping
        // Whatever ended the log here, it must not hide later entries of this generation in the same file.
        long scanning = ReplayStageClock.Now;
        ThrowIfValidEntryFollows(journals, index, offset, end, sameFileOnly: true);
        _stages.TailScanTicks += ReplayStageClock.Now - scanning;
        // The writer moves to the next journal when an entry does not fit, leaving the rest of this one as it
        // was: zeros, or a recycled file's stale bytes. So the log goes on if the next journal begins with
        // exactly the next transaction; anything else after a non-empty end makes that end a torn tail.
        bool clean = end.IsValid || end.Problem == JournalEntryProblem.Empty || NextJournalContinues(journals, index);
        long links = PalFileSystem.LinkCount(path);
        bool shared = links > 1 || owners.Writers is not null;
        if (clean)
        {
            _retained.Add(new RetainedJournal(sequence, path, _window.FileSize, lastHere, shared));
            return true;
        }

        ThrowIfValidEntryFollows(journals, index, offset, end, sameFileOnly: false);
        _tornTail = new TornJournalTail(path, offset,
            end.HeaderIsTrusted && end.Header.EnvironmentId == _header.EnvironmentId ? end.Header.TransactionId : null, end.Reason);
        if (_readOnly)
            return false; // reported (RecoveryResult.TornTail), never cut: the file stays as it is
        if (links > 1)
        {
            // Other environments read this file under their own names: its bytes are theirs too, so they stay.
            Log.TornSharedJournalTail(_logger, path, offset, end.Reason, links, _expected - 1);
            _retained.Add(new RetainedJournal(sequence, path, _window.FileSize, lastHere, shared));
            return false;
        }
        // Cut once the replay is done (Run): until the applier has applied every entry before it, an open can still fail.
        _pendingCut = new PendingTailCut(path, offset, end.Reason, _window.FileSize - offset, _expected - 1);
        _retained.Add(new RetainedJournal(sequence, path, offset, lastHere, shared));
        return false;
    }

    /// <summary>
    /// An entry whose header checksum holds but whose format version this build does not read was written by
    /// another Cairn (no torn write makes one): the journal is refused as it is, never cut off as a torn tail.
    /// </summary>
    private static JournalCorruptionException UnsupportedVersion(string path, in JournalEntryValidation validation)
        => new(path, validation.Offset, validation.Header.TransactionId,
            $"{validation.Reason}: a journal written by a Cairn build of another format version");

    public void Dispose()
    {
        // The applier first: it writes into the pages until it has stopped.
        _pipeline.Dispose();
        _pages.Dispose();
        _checker.Dispose();
        _window.Dispose();
        _scanWindow.Dispose();
        _tailWindow.Dispose();
    }
}
