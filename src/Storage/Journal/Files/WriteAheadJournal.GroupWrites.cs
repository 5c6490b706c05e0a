using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// A journal group's writes on the root's journal. A write claims the next span of the journal in service
/// (under the append lock), goes to the device with no lock held, so the group's next write can be claimed
/// and sent while it is in flight, and is then settled in claim order: it counts as durable only once every
/// write before it in the file is too, because recovery reads a file front to back and stops at the first
/// hole. A write that fails fails every write claimed after it.
/// </summary>
internal sealed unsafe partial class WriteAheadJournal
{
    // Under _appendLock. Group writes that claimed a span of the journal in service and are not settled,
    // oldest first. The journal in service is never switched while one is in flight (its handle is in use).
    private readonly Queue<GroupWrite> _inFlight = new();
    // A write failed with a full disk and the writes claimed after it are still settling: nothing new is
    // claimed until they have, then the journal goes on where the failed write began (_rewindTo).
    private Exception? _draining;
    private long _rewindTo;
    // A write failed otherwise: the root's journal is done, every later group write fails with this.
    private Exception? _fatal;

    /// <summary>
    /// Writes the requests' entries back to back with one vectored O_DIRECT|O_DSYNC write per journal file
    /// they fill (one, unless the journal in service fills up), through <paramref name="write"/>. Each entry
    /// is stamped with where the oldest write not yet settled began and, if it is a branch's, with
    /// <paramref name="rootId"/> as its writer. Returns once the write is settled: each request then knows the
    /// file and the offset its entry ends at (<see cref="GroupWriteEntry.WrittenInto"/>,
    /// <see cref="GroupWriteEntry.End"/>), and a file that carried a branch's entry is pinned once per
    /// such entry (<see cref="Unpin"/>), so it cannot be released before the branch has linked it. A write
    /// that fails fails its requests and every later one (<see cref="GroupWriteEntry.Error"/>); a full
    /// disk wipes the first block of each entry of the failed write and of every write claimed after it.
    /// Several callers may be in here at once, each with its own <paramref name="write"/>.
    /// </summary>
    public void AppendGroup(IReadOnlyList<GroupWriteEntry> requests, Guid rootId, GroupWrite write)
    {
        int next = 0;
        while (next < requests.Count)
        {
            if (!TryClaim(requests, next, rootId, write))
                return;
            Perform(requests, write);
            if (!Settle(requests, write, rootId))
            {
                FailFrom(requests, write.End, requests[write.First].Error!);
                return;
            }
            next = write.End;
        }
    }

    /// <summary>Iovecs per write: what one pwritev takes (IOV_MAX), so a group write is one system call.</summary>
    public const int MaxBuffersPerWrite = 1024;

    /// <summary>
    /// Under the lock: claims the span for the requests from <paramref name="next"/> that fit the journal in
    /// service (switching to the next file when the first does not, once nothing is in flight), and stamps
    /// them. False if no span could be had (the requests from <paramref name="next"/> are failed).
    /// </summary>
    private bool TryClaim(IReadOnlyList<GroupWriteEntry> requests, int next, Guid rootId, GroupWrite write)
    {
        lock (_appendLock)
        {
            while (true)
            {
                if (_fatal is not null)
                {
                    FailFrom(requests, next, _fatal);
                    return false;
                }
                if (_draining is null && _active is not null && _active.Fits(requests[next].Length))
                    break;
                if (_draining is not null || _inFlight.Count > 0)
                {
                    Monitor.Wait(_appendLock);
                    continue;
                }
                try
                {
                    SwitchFile(requests[next].Length);
                }
                catch (Exception e)
                {
                    FailFrom(requests, next, e);
                    return false;
                }
            }
            var journal = _active!;
            long start = journal.WritePosition;
            // Recovery takes an entry's OffsetInWrite as "the log may be torn anywhere from this many bytes before
            // me, and I go with it": that is from the oldest write not settled yet, which may not be durable either.
            long unsettledFrom = _inFlight.TryPeek(out var oldest) ? oldest.Offset : start;
            int end = next;
            long total = 0;
            while (end < requests.Count && end - next < MaxBuffersPerWrite && start + total + requests[end].Length <= journal.Size)
            {
                var request = requests[end];
                var writer = request.EnvironmentId == rootId ? Guid.Empty : rootId;
                // Each of the environment's entries is stamped as if it had come alone: recovery reads entries, not requests.
                long inRequest = 0;
                foreach (long length in request.EntryLengths)
                {
                    JournalEntryHeader.StampWrite(request.Entry + inRequest, writer, start + total + inRequest - unsettledFrom);
                    inRequest += length;
                }
                total += request.Length;
                end++;
            }
            write.Claim(journal, journal.Reserve(total), total, next, end);
            _inFlight.Enqueue(write);
            return true;
        }
    }

    // Null unless a test asked for hooks: production pays one null check at each hook point.
    private WriteAheadJournalTestHooks? _testingHooks;

    /// <summary>Points where a test holds a writer of this journal (created on first use; tests only).</summary>
    internal WriteAheadJournalTestHooks ForTestingPurposesOnly() => _testingHooks ??= new();

    /// <summary>The write itself, with no lock held: other writes are claimed and sent meanwhile.</summary>
    private void Perform(IReadOnlyList<GroupWriteEntry> requests, GroupWrite write)
    {
        int count = write.Count;
        var buffers = count <= 64 ? stackalloc PalBuffer[count] : new PalBuffer[count];
        for (int i = 0; i < count; i++)
            buffers[i] = new PalBuffer(requests[write.First + i].Entry, requests[write.First + i].Length);
        write.Started = Stopwatch.GetTimestamp();
        try
        {
            _testingHooks?.GroupWritePerforming?.Invoke(write);
            write.File.WriteAt(buffers, write.Offset);
        }
        catch (Exception e)
        {
            // Whatever it is, the write is settled as failed: it was claimed, and every write claimed after it waits
            // for it to settle. Anything but a full disk fails the journal for good (Fail).
            write.Failure = e;
        }
        write.Finished = Stopwatch.GetTimestamp();
    }

    /// <summary>
    /// Waits until every write claimed before <paramref name="write"/> is settled, then settles it: true if it
    /// and all of those are durable (its requests learn where their entries went), false if it failed.
    /// </summary>
    private bool Settle(IReadOnlyList<GroupWriteEntry> requests, GroupWrite write, Guid rootId)
    {
        lock (_appendLock)
        {
            while (!ReferenceEquals(_inFlight.Peek(), write))
                Monitor.Wait(_appendLock);
            _inFlight.Dequeue();
            try
            {
                if (write.Failure is null && _draining is null && _fatal is null)
                {
                    NoteGroupWritten(requests, write, rootId);
                    return true;
                }
                Fail(requests, write, rootId);
                return false;
            }
            finally
            {
                if (_inFlight.Count == 0 && _draining is not null)
                {
                    if (_fatal is null)
                        write.File.Rewind(_rewindTo);
                    _draining = null;
                }
                Monitor.PulseAll(_appendLock);
            }
        }
    }

    private void NoteGroupWritten(IReadOnlyList<GroupWriteEntry> requests, GroupWrite write, Guid rootId)
    {
        var journal = write.File;
        long position = write.Offset;
        long ownFirst = -1, ownLast = -1;
        int transactions = 0;
        for (int i = write.First; i < write.End; i++)
        {
            var request = requests[i];
            request.WriteStartTimestamp = write.Started;
            request.WriteEndTimestamp = write.Finished;
            request.WrittenInto = journal;
            if (request.EnvironmentId == rootId)
            {
                journal.NoteTransactions(request.FirstTransactionId, request.LastTransactionId);
                ownFirst = ownFirst < 0 ? request.FirstTransactionId : ownFirst;
                ownLast = request.LastTransactionId;
            }
            else
            {
                _inventory.Pin(journal.FilePath);
            }
            transactions += request.EntryCount;
            position += request.Length;
            request.End = position;
        }
        // Each environment has at most one request in flight, so the write carries as many environments as requests.
        NoteWritten(journal, write.Started, write.Finished, write.Length, ownFirst, ownLast, transactions, environmentCount: write.Count,
            CarriedEnvironments(requests, write, rootId));
    }

    /// <summary>
    /// The names of the environments a group write carried, in the order of their entries (for its IO stats record); the
    /// root's marked as such, since its folder may be named anything.
    /// </summary>
    private static string[] CarriedEnvironments(IReadOnlyList<GroupWriteEntry> requests, GroupWrite write, Guid rootId)
    {
        var names = new string[write.Count];
        for (int i = 0; i < names.Length; i++)
        {
            var request = requests[write.First + i];
            names[i] = request.EnvironmentId == rootId ? request.EnvironmentName + " (root)" : request.EnvironmentName;
        }
        return names;
    }

    /// <summary>
    /// The write failed, or one claimed before it did. After a full disk the entries are wiped (any of them may
    /// have reached the disk whole, and each environment rolls its transaction back) and the journal goes on
    /// where the first failed write began; anything else, or a wipe that fails, fails the journal for good.
    /// </summary>
    private void Fail(IReadOnlyList<GroupWriteEntry> requests, GroupWrite write, Guid rootId)
    {
        var journal = write.File;
        if (write.Failure is not null)
            _ioStats.RecordCarrying(IoOperationKind.JournalWrite, write.Started, write.Finished, write.Length, journal.FilePath, -1, -1,
                TransactionsIn(requests, write), failed: true, write.Count, CarriedEnvironments(requests, write, rootId));
        Exception cause = write.Failure ?? _draining ?? _fatal!;
        Exception error;
        if (_fatal is null && cause is DiskFullException && TryWipeEntries(journal, requests, write))
        {
            error = cause;
            if (_draining is null)
            {
                _draining = cause;
                _rewindTo = write.Offset;
            }
        }
        else
        {
            error = _fatal ?? new JournalWriteFatalException(journal.FilePath, write.Offset, cause);
            _fatal = error;
        }
        for (int i = write.First; i < write.End; i++)
            requests[i].Error = error;
    }

    /// <summary>Under the lock, before a single append: the group writes in flight settle first (they own the next spans).</summary>
    private void WaitForGroupWrites()
    {
        while (_inFlight.Count > 0 || _draining is not null)
            Monitor.Wait(_appendLock);
    }

    private static void FailFrom(IReadOnlyList<GroupWriteEntry> requests, int first, Exception error)
    {
        for (int i = first; i < requests.Count; i++)
            requests[i].Error ??= error;
    }

    /// <summary>Zeros the first block of each entry of a failed write (every entry of each environment it carried), so none that reached the disk whole can be replayed. False if even that fails.</summary>
    private bool TryWipeEntries(JournalFile journal, IReadOnlyList<GroupWriteEntry> requests, GroupWrite write)
    {
        long offset = write.Offset;
        for (int i = write.First; i < write.End; i++)
        {
            foreach (long length in requests[i].EntryLengths)
            {
                if (!TryWipe(journal, offset))
                    return false;
                offset += length;
            }
        }
        return true;
    }

    private static int TransactionsIn(IReadOnlyList<GroupWriteEntry> requests, GroupWrite write)
    {
        int transactions = 0;
        for (int i = write.First; i < write.End; i++)
            transactions += requests[i].EntryCount;
        return transactions;
    }
}
