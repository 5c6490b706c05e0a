using Cairn.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Pal;
using Microsoft.Extensions.Logging;

namespace Cairn.Journal.Sharing;

/// <summary>
/// An environment's write stage when it belongs to a journal group, as root or as branch: its entries go
/// into the group's shared writes, and a branch's entries are linked into its own folder as they land. An
/// environment falls back to its own journal (<paramref name="own"/>) when sharing cannot carry an entry:
/// for good when the branch is on another file system than its root or the root has closed, until the
/// root's next file when a file cannot be linked. Each fallback is logged with its own event id.
/// </summary>
internal sealed unsafe class JournalGroupMember(WriteAheadJournal own, Guid environmentId, bool isRoot, IoStats ioStats, ILogger logger)
    : IJournalAppender, IDisposable
{
    // Only the environment's writer uses these (one entry in flight at a time), and the group's writer
    // while that entry is in its write.
    private readonly SharedWriteRequest _request = new();
    private JournalGroup? _group;
    // A root file this branch could not link: its entries go to its own journal until the root moves on.
    private JournalFile? _unlinkable;

    public Guid EnvironmentId { get; } = environmentId;

    public bool IsRoot { get; } = isRoot;

    public string DirectoryPath => own.DirectoryPath;

    /// <summary>Whether entries go to the group now (false once the branch fell back for good).</summary>
    public bool Sharing => Volatile.Read(ref _group) is not null;

    /// <summary>Starts writing through <paramref name="group"/>.</summary>
    public void Attach(JournalGroup group) => Volatile.Write(ref _group, group);

    /// <summary>The environment's name in the IO stats records of shared writes: its folder's name.</summary>
    public string EnvironmentName { get; } = NameOf(own.DirectoryPath);

    public JournalPosition Append(byte* entry, long length, long transactionId)
    {
        Span<JournalPosition> end = stackalloc JournalPosition[1];
        AppendEntries(entry, [length], transactionId, end);
        return end[0];
    }

    /// <summary>
    /// Every entry the environment has waiting goes into one request, so one shared write carries the environment's
    /// whole group commit (not one entry per write); each entry is still stamped as its own in the root's file. Not
    /// sharing (or falling back): one write of them all to its own journal.
    /// </summary>
    public void AppendEntries(byte* entries, ReadOnlySpan<long> lengths, long firstTransactionId, Span<JournalPosition> ends)
    {
        var group = Volatile.Read(ref _group);
        if (group is null || (_unlinkable is not null && ReferenceEquals(group.ActiveFile, _unlinkable)))
        {
            own.AppendEntries(entries, lengths, firstTransactionId, ends);
            return;
        }
        _unlinkable = null;
        var request = _request;
        request.Prepare(this, entries, lengths, firstTransactionId);
        if (!group.Submit(request))
        {
            if (!IsRoot)
                Log.SharingStoppedRootClosed(logger, own.DirectoryPath);
            Volatile.Write(ref _group, null);
            own.AppendEntries(entries, lengths, firstTransactionId, ends);
            return;
        }
        if (request.Error is { } error)
            throw ForThisEnvironment(error, group);
        if (request.LinkError is { } linkError)
        {
            NoteLinkFailure(request.WrittenInto!, linkError);
            own.AppendEntries(entries, lengths, firstTransactionId, ends);
            return;
        }
        if (!IsRoot)
            ioStats.Record(IoOperationKind.JournalWrite, request.WriteStartTimestamp, request.WriteEndTimestamp, request.Length,
                request.WrittenInto!.FilePath, firstTransactionId, request.LastTransactionId, lengths.Length);
        // The entries lie back to back up to where the last one ends.
        var last = request.Position;
        long offset = last.EndOffset - request.Length;
        for (int i = 0; i < lengths.Length; i++)
        {
            offset += lengths[i];
            ends[i] = last with { EndOffset = offset };
        }
    }

    /// <summary>The environment's folder name, from its journal folder (<c>…/name/Journals</c>) or the folder itself.</summary>
    private static string NameOf(string journalDirectory)
    {
        string trimmed = Path.TrimEndingDirectorySeparator(journalDirectory);
        string name = Path.GetFileName(trimmed);
        return name == JournalFileName.DirectoryName ? Path.GetFileName(Path.GetDirectoryName(trimmed)) ?? name : name;
    }

    /// <summary>On the group's writer, once this branch's entry is durable in <paramref name="file"/> (pinned there until this returns).</summary>
    public JournalPosition RecordLinked(JournalFile file, long end, long transactionId) => own.RecordLinked(file, end, transactionId);

    private void NoteLinkFailure(JournalFile rootFile, Exception error)
    {
        switch (error)
        {
            case PalCrossDeviceException:
                Log.SharingStoppedCrossDevice(logger, own.DirectoryPath, rootFile.FilePath);
                Volatile.Write(ref _group, null);
                break;
            case PalTooManyLinksException:
                Log.SharingSkippedLinkLimit(logger, own.DirectoryPath, rootFile.FilePath);
                _unlinkable = rootFile;
                break;
            default:
                Log.SharingLinkFailed(logger, error, own.DirectoryPath, rootFile.FilePath);
                _unlinkable = rootFile;
                break;
        }
    }

    /// <summary>
    /// The group write's failure as this environment's own exception (one object per environment: they are
    /// thrown on different threads): a full disk stays one (the commit can be rolled back), anything else is fatal.
    /// </summary>
    private static Exception ForThisEnvironment(Exception error, JournalGroup group) => error switch
    {
        DiskFullException full => new DiskFullException(full.Message, full.Status, full.OsError, full.Operation, full.FilePath, full.Offset),
        JournalWriteFatalException fatal => new JournalWriteFatalException(fatal.JournalPath, fatal.Offset, fatal.InnerException ?? fatal),
        // Not an I/O failure of a journal file (opening the root's next journal failed in some other way): the root's folder is named.
        _ => new JournalWriteFatalException(group.RootDirectory, -1, error),
    };

    public void Dispose() => _request.Dispose();
}
