using System.Diagnostics;
using Cairn.Journal.Files;

namespace Cairn.Journal.Sharing;

/// <summary>
/// A journal group: a root environment whose journal writer also writes its branches' entries, so that
/// many environments committing at once pay for one durable write instead of one each. Members submit a
/// request (every commit it has waiting) and wait; whoever submits while fewer writes than the limit are under way
/// becomes a writer: it takes every pending request (at most <see cref="MaxEntriesPerWrite"/> and
/// <see cref="MaxBytesPerWrite"/>, so no commit waits behind an unbounded write), writes them with one vectored write
/// on the root's journal, completes them, and hands the next write to the first member still waiting. The limit
/// adapts to the rate of commits the group carries (<see cref="WritesInFlightPolicy"/>). No thread of its own: a write costs no thread switch,
/// and requests that arrive during a write go together in the next one.
/// </summary>
internal sealed partial class JournalGroup
{
    /// <summary>
    /// The shortest window the in-flight rule judges (300 ms): three of blk-throttle's 100 ms slices, so that a capped
    /// device's bursts and stalls average out (see <see cref="WritesInFlightPolicy"/>).
    /// </summary>
    private static readonly long MinWindowTicks = Stopwatch.Frequency * 3 / 10;

    private readonly WriteAheadJournal _rootJournal;
    private readonly Guid _rootId;

    // Guards the pending queue, the writers at work, the members and their ids, and the group's state (closed,
    // failed). Never held during a write itself, nor while a branch links a file; taken under no other lock of
    // the group (a writer takes the root journal's append lock only outside it).
    private readonly Lock _gate = new();
    private readonly List<SharedWriteRequest> _pending = [];
    // Members performing writes now, each with its own batch: at most the policy's limit (more, briefly, after it fell).
    private int _writers;
    // Writers between taking a batch and their write's return: how many writes were on the device with each one.
    private int _onDevice;
    private readonly WritesInFlightPolicy _inFlight;
    // At a limit of one: how long the next write waits for the members the last one released (null: never waits).
    private readonly WriteGather? _gather;
    // Set once every member the last settled write released has submitted again (or the group closed or failed):
    // what a gathering writer waits on, outside the gate.
    private readonly ManualResetEventSlim _gathered = new(initialState: true, spinCount: 0);
    // The number of the last write that settled without a fatal error: a submitter its request names was released by it.
    private long _lastSettledWrite;
    // Writes sent so far, and the sum over them of _onDevice as each started (itself included): how many writes the
    // group really keeps on the device, beside the limit it allows (the bench reports their ratio).
    private long _writesSent;
    private long _onDeviceAtStarts;
    // Writers still recording branch entries of a write already handed on (Close waits for them).
    private int _linking;
    private bool _closed;
    // Set under the gate once the group is closed and nothing is left to write or record: what Close waits on.
    private readonly ManualResetEventSlim _drained = new(initialState: false, spinCount: 0);
    private Exception? _failure;
    private int _members;
    // The environment id of every member (the root's, and each branch's from the moment its header is read), with
    // its directory: an id is what tells the members' entries apart in the shared files, so it is unique here.
    private readonly Dictionary<Guid, string> _identities = [];
    private readonly string _rootEnvironmentDirectory;

    /// <summary>
    /// A group over the root's journal; how many writes may be on the device at once is learnt from it, up to
    /// <c>maxWritesInFlight</c>, and at one in flight a write gathers the members the last one released, unless
    /// <c>inFlight</c> says otherwise (then it gathers only with <c>gather</c>: tests of the writes' ordering get none).
    /// </summary>
    public JournalGroup(WriteAheadJournal rootJournal, Guid rootId, string rootEnvironmentDirectory, int maxEntriesPerWrite, long maxBytesPerWrite,
        int maxWritesInFlight, WritesInFlightPolicy? inFlight = null, WriteGather? gather = null)
    {
        _inFlight = inFlight ?? new WritesInFlightPolicy(maxWritesInFlight, MinWindowTicks);
        _gather = inFlight is null ? gather ?? new WriteGather(MaxGatherTicks) : gather;
        _rootJournal = rootJournal;
        _rootId = rootId;
        _rootEnvironmentDirectory = rootEnvironmentDirectory;
        _identities.Add(rootId, rootEnvironmentDirectory);
        MaxEntriesPerWrite = Math.Clamp(maxEntriesPerWrite, 1, WriteAheadJournal.MaxBuffersPerWrite);
        MaxBytesPerWrite = maxBytesPerWrite;
    }

    /// <summary>The root environment's id: what branch entries carry as their writer.</summary>
    public Guid RootId => _rootId;

    public string RootDirectory => _rootJournal.DirectoryPath;

    /// <summary>The root's journal in service (a hint, read without a lock).</summary>
    public JournalFile? ActiveFile => _rootJournal.ActiveFile;

    public int MaxEntriesPerWrite { get; }

    public long MaxBytesPerWrite { get; }

    /// <summary>Writes of the group on the device at once at most: a write is sent while earlier ones are in flight, up to the policy's limit, which never exceeds this.</summary>
    public int MaxWritesInFlight => _inFlight.Maximum;

    /// <summary>Writes of the group allowed on the device at once now (learnt from the device).</summary>
    public int WritesInFlightLimit
    {
        get
        {
            lock (_gate)
                return _inFlight.Limit;
        }
    }

    /// <summary>Writes sent so far, and the sum over them of the group's writes on the device as each started (itself included).</summary>
    public (long Writes, long OnDeviceAtStarts) WritesSent
    {
        get
        {
            lock (_gate)
                return (_writesSent, _onDeviceAtStarts);
        }
    }

    /// <summary>Branches joined and not yet left.</summary>
    public int BranchCount
    {
        get
        {
            lock (_gate)
                return _members;
        }
    }

    /// <summary>Entries waiting for a write (not counting those in the write under way).</summary>
    public int PendingCount
    {
        get
        {
            lock (_gate)
                return _pending.Count;
        }
    }

    // Null unless a test asked for hooks: production pays one null check at each hook point.
    private JournalGroupTestHooks? _testingHooks;

    /// <summary>Points where a test holds the group's writer (created on first use; tests only).</summary>
    internal JournalGroupTestHooks ForTestingPurposesOnly() => _testingHooks ??= new();

    /// <summary>
    /// Writes the request's entry in one of the group's next writes and returns once it is durable or failed
    /// (<see cref="GroupWriteEntry.Error"/>); false if the group is closed (the entry was not written).
    /// A failure of the root's journal other than a full disk fails the group for good: every later
    /// submission fails with the same error.
    /// </summary>
    public bool Submit(SharedWriteRequest request)
    {
        bool writer;
        lock (_gate)
        {
            if (_failure is not null)
            {
                request.Error = _failure;
                return true;
            }
            if (_closed)
                return false;
            _pending.Add(request);
            if (request.CarriedBy != 0 && request.CarriedBy == _lastSettledWrite && _gather is not null && _gather.Returned())
                _gathered.Set();
            writer = _writers < _inFlight.Limit;
            if (writer)
            {
                _writers++;
                request.Leading = true;
            }
        }
        if (!writer && !request.WaitForTurn())
            return true;
        WriteUntilDone(request);
        return true;
    }

    /// <summary>
    /// As one of the group's writers: writes batches until <paramref name="own"/> is out of the queue, then
    /// waits for it if another writer took it. The root's entries (and failed ones) are completed as soon as
    /// their write is settled and the writer's turn is handed on; then the branches' entries are recorded (a
    /// branch links a root file it has no name for yet, a directory sync) and completed, so no commit of the
    /// group waits behind another environment's link.
    /// </summary>
    private void WriteUntilDone(SharedWriteRequest own)
    {
        var batch = own.Batch;
        while (true)
        {
            int onDevice;
            int commits;
            long writeNumber;
            bool waited = Gather();
            lock (_gate)
            {
                _gather?.BatchTaken(waited);
                writeNumber = _writesSent + 1;
                commits = TakeBatch(batch, writeNumber);
                onDevice = batch.Count > 0 ? ++_onDevice : 0;
                if (onDevice > 0)
                {
                    _writesSent++;
                    _onDeviceAtStarts += onDevice;
                }
            }
            int released = batch.Count;
            bool ownInBatch = batch.Contains(own);
            // From here the batch holds only the branch entries still to record: the others are completed, and a
            // completed request is its submitter's again (it may already carry that member's next entry).
            var fatal = onDevice > 0 ? Write(batch, own) : null;
            bool branchesWritten = batch.Count > 0;
            bool ownQueued;
            lock (_gate)
            {
                if (onDevice > 0)
                {
                    _onDevice--;
                    if (fatal is null && own.Write.Finished > own.Write.Started)
                    {
                        _inFlight.Observe(own.Write.Started, own.Write.Finished, commits);
                        _lastSettledWrite = writeNumber;
                        if (_gather is not null)
                        {
                            // Only where one write at a time goes to the device: in parallel, the next write is already there.
                            _gather.Settled(own.Write.Finished, own.Write.Finished - own.Write.Started, released, gather: _inFlight.Limit == 1);
                            _gathered.Reset();
                        }
                    }
                }
                if (fatal is not null && _failure is null)
                    _failure = fatal;
                if (_failure is not null)
                {
                    FailPending();
                    _gathered.Set();
                }
                if (branchesWritten)
                    _linking++;
                // Still queued when the batch before it was full: this caller writes the next one too.
                ownQueued = !own.Taken;
                if (!ownQueued)
                {
                    own.Leading = false;
                    HandOnTurn();
                }
                SignalIfDrained();
            }
            if (branchesWritten)
                RecordBranchEntries(batch, own);
            batch.Clear();
            if (ownQueued)
                continue;
            if (!ownInBatch)
                own.WaitForCompletion(); // another writer took it
            return;
        }
    }

    /// <summary>
    /// One write of <paramref name="batch"/>. Its root entries and failed entries are completed once it is settled
    /// and leave the batch, which keeps the branch entries written and still to record. Returns the write's fatal
    /// error, if it had one.
    /// </summary>
    /// <remarks>
    /// Nothing of a request is read once it is completed: its submitter returns at once and may prepare its
    /// member's next entry in it (each member owns one request), which this writer would take for an entry of its
    /// own write. Each request is judged and dropped from the batch before it is completed.
    /// </remarks>
    private Exception? Write(List<SharedWriteRequest> batch, SharedWriteRequest own)
    {
        try
        {
            _testingHooks?.WriteStarting?.Invoke(batch.Count);
            _rootJournal.AppendGroup(batch, _rootId, own.Write);
        }
        catch (Exception e)
        {
            // The journal reports its failures through the requests; what escapes it is unexpected (a defect, or a
            // file closed under it), so whether the write reached the disk is unknown: the group fails for good.
            var error = e as JournalWriteFatalException ?? new JournalWriteFatalException(_rootJournal.DirectoryPath, -1, e);
            foreach (var request in batch)
                request.Error ??= error;
        }
        Exception? fatal = null;
        int toRecord = 0;
        for (int i = 0; i < batch.Count; i++)
        {
            var request = batch[i];
            if (request.Error is null && !request.Member.IsRoot)
            {
                batch[toRecord++] = request;
                continue;
            }
            if (request.Error is JournalWriteFatalException)
                fatal ??= request.Error;
            if (request.Error is null)
                request.Position = new JournalPosition(request.WrittenInto!.Sequence, request.End);
            if (!ReferenceEquals(request, own))
                request.Complete();
        }
        batch.RemoveRange(toRecord, batch.Count - toRecord);
        _testingHooks?.WriteSettled?.Invoke();
        return fatal;
    }

    /// <summary>Under the gate: the group has failed for good, so nothing pending will be written.</summary>
    private void FailPending()
    {
        foreach (var request in _pending)
        {
            request.Taken = true;
            request.Error = _failure;
            request.Complete();
        }
        _pending.Clear();
    }

    /// <summary>
    /// Under the gate, from a writer done with its own entry: the first queued entry whose submitter waits
    /// (not one that is a writer itself) gets the turn; with none, or with more writers at work than the limit now
    /// allows (it fell), there is one writer fewer (another is still at work, since the limit is at least one, and
    /// hands its turn on in its time).
    /// </summary>
    private void HandOnTurn()
    {
        if (_writers > _inFlight.Limit)
        {
            _writers--;
            return;
        }
        foreach (var request in _pending)
        {
            if (request.Leading)
                continue;
            request.Leading = true;
            request.Promote(); // it writes the next batch while this caller finishes its own
            return;
        }
        _writers--;
    }

    /// <summary>
    /// Each branch entry of the batch (all written) records where it went (linking the file if need be), then its
    /// commit is acknowledged. Every request is completed whatever fails: a file that cannot be linked (an I/O error)
    /// makes the branch write the entry itself; anything else fails that branch's commit as a failed journal write (the
    /// branch stops: whether its entry counts is unknown until it reopens); a root file whose pin cannot be let go fails
    /// the group for good. Nothing of a request is read once it is completed.
    /// </summary>
    private void RecordBranchEntries(List<SharedWriteRequest> batch, SharedWriteRequest own)
    {
        Exception? broken = null;
        try
        {
            foreach (var request in batch)
            {
                try
                {
                    _testingHooks?.BranchEntryRecording?.Invoke(request);
                    request.Position = request.Member.RecordLinked(request.WrittenInto!, request.End, request.LastTransactionId);
                }
                catch (IOException e)
                {
                    request.LinkError = e;
                }
                catch (Exception e)
                {
                    request.Error = new JournalWriteFatalException(request.WrittenInto!.FilePath, request.End, e);
                }
                finally
                {
                    try
                    {
                        _rootJournal.Unpin(request.WrittenInto!);
                    }
                    catch (Exception e)
                    {
                        broken ??= new JournalWriteFatalException(request.WrittenInto!.FilePath, -1, e);
                    }
                }
                if (!ReferenceEquals(request, own))
                    request.Complete();
            }
        }
        finally
        {
            lock (_gate)
            {
                _linking--;
                if (broken is not null && _failure is null)
                    _failure = broken;
                if (_failure is not null)
                    FailPending();
                SignalIfDrained();
            }
        }
    }

    /// <summary>Under the gate: every pending request, oldest first, within the bounds of count and bytes (always at least one), marked as carried by write <paramref name="writeNumber"/>; returns the commits they carry.</summary>
    private int TakeBatch(List<SharedWriteRequest> batch, long writeNumber)
    {
        batch.Clear();
        long bytes = 0;
        int take = 0;
        while (take < _pending.Count && take < MaxEntriesPerWrite)
        {
            long length = _pending[take].Length;
            if (take > 0 && bytes + length > MaxBytesPerWrite)
                break;
            bytes += length;
            take++;
        }
        int commits = 0;
        for (int i = 0; i < take; i++)
        {
            _pending[i].Taken = true;
            _pending[i].CarriedBy = writeNumber;
            commits += _pending[i].EntryCount;
            batch.Add(_pending[i]);
        }
        _pending.RemoveRange(0, take);
        return commits;
    }

    /// <summary>
    /// The root is closing: no new submissions (members write their own journals from now on). Returns once
    /// the write under way, if any, and everything already pending are written and recorded: it blocks on a
    /// signal the last writer to finish sets, with no polling.
    /// </summary>
    public void Close()
    {
        lock (_gate)
        {
            _closed = true;
            _gathered.Set();
            SignalIfDrained();
            if (_drained.IsSet)
                return;
        }
        _testingHooks?.CloseWaiting?.Invoke();
        _drained.Wait();
    }

    /// <summary>Under the gate: once the group is closed and no writer has anything left to write or record, Close may return.</summary>
    private void SignalIfDrained()
    {
        if (_closed && _writers == 0 && _pending.Count == 0 && _linking == 0)
            _drained.Set();
    }
}
