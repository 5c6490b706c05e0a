namespace Cairn.Pal.Testing;

/// <summary>What a traced operation did to a file or directory.</summary>
public enum PalTracedKind
{
    /// <summary>A file came into existence (its directory entry; durable once the directory is synced).</summary>
    Create,
    /// <summary>Bytes written at an offset (<see cref="PalTracedOperation.Data"/>, or zeros when it is null).</summary>
    Write,
    /// <summary>The file's size became at least <see cref="PalTracedOperation.Size"/> (fallocate, extending set-size).</summary>
    Extend,
    /// <summary>The file's size became exactly <see cref="PalTracedOperation.Size"/>.</summary>
    Truncate,
    /// <summary>fdatasync of the file: everything written to it before is durable.</summary>
    Sync,
    /// <summary>fsync of a directory: the entries created, renamed and deleted in it before are durable.</summary>
    SyncDirectory,
    /// <summary>A rename (<see cref="PalTracedOperation.OtherPath"/> is the new name).</summary>
    Rename,
    /// <summary>A hard link (<see cref="PalTracedOperation.OtherPath"/> is the new name).</summary>
    Link,
    /// <summary>A file was deleted (its directory entry; durable once the directory is synced).</summary>
    Delete,
    /// <summary>
    /// Write-back of a range was started or waited for (sync_file_range over <see cref="PalTracedOperation.Offset"/> and
    /// <see cref="PalTracedOperation.Size"/>, 0 = to the end): paces write-back, proves nothing durable.
    /// </summary>
    SyncRange,
}

/// <summary>
/// One traced operation, in the order operations completed. <see cref="Durable"/>: durable when it
/// returned (an O_DSYNC write, a write followed by a sync inside the same call, a rename or link whose
/// directories were synced).
/// </summary>
public sealed record PalTracedOperation(long Sequence, PalTracedKind Kind, string Path, long Offset, byte[]? Data, long Size,
    string? OtherPath, bool Durable)
{
    /// <summary>One line for a test's failure message, e.g. <c>#12 Write cairn.data @8192+8192 (durable)</c>.</summary>
    public override string ToString() => $"#{Sequence} {Kind} {System.IO.Path.GetFileName(Path)}" +
        (Kind is PalTracedKind.Write or PalTracedKind.SyncRange ? $" @{Offset}+{Size}{(Data is null ? " zeros" : "")}" : Kind is PalTracedKind.Extend or PalTracedKind.Truncate ? $" {Size}" : "") +
        (OtherPath is null ? "" : $" -> {System.IO.Path.GetFileName(OtherPath)}") + (Durable ? " (durable)" : "");
}

/// <summary>
/// Test-only record of every write, size change, sync and directory operation that goes through the
/// managed PAL under a directory, in completion order, with the bytes written: what a crash test needs
/// to build the disk states a crash at any point could leave. Inert (one static read per operation)
/// while nothing records.
/// </summary>
public sealed class PalIoRecording : IDisposable, IPalIoObserver
{
    private readonly List<PalTracedOperation> _operations = [];
    private readonly string _root;

    private PalIoRecording(string root) => _root = root.EndsWith('/') ? root : root + "/";

    /// <summary>Starts recording operations on paths under <paramref name="root"/> until disposed.</summary>
    public static PalIoRecording Start(string root)
    {
        var recording = new PalIoRecording(Path.GetFullPath(root));
        PalIoObservers.Add(recording);
        return recording;
    }

    /// <summary>Operations recorded so far (the sequence of the next one).</summary>
    public long Count
    {
        get
        {
            lock (_operations)
                return _operations.Count;
        }
    }

    /// <summary>A copy of the operations recorded so far, in completion order.</summary>
    public IReadOnlyList<PalTracedOperation> Operations
    {
        get
        {
            lock (_operations)
                return _operations.ToArray();
        }
    }

    /// <summary>Stops recording; <see cref="Operations"/> stays readable.</summary>
    public void Dispose() => PalIoObservers.Remove(this);

    void IPalIoObserver.Observe(PalIoEventKind kind, string path, long offset, byte[]? data, long size, string? otherPath, bool durable)
    {
        if (!path.StartsWith(_root, StringComparison.Ordinal))
            return;
        lock (_operations)
            _operations.Add(new PalTracedOperation(_operations.Count, ToTraced(kind), path, offset, data, size, otherPath, durable));
    }

    private static PalTracedKind ToTraced(PalIoEventKind kind) => kind switch
    {
        PalIoEventKind.Create => PalTracedKind.Create,
        PalIoEventKind.Write => PalTracedKind.Write,
        PalIoEventKind.Extend => PalTracedKind.Extend,
        PalIoEventKind.Truncate => PalTracedKind.Truncate,
        PalIoEventKind.Sync => PalTracedKind.Sync,
        PalIoEventKind.SyncDirectory => PalTracedKind.SyncDirectory,
        PalIoEventKind.Rename => PalTracedKind.Rename,
        PalIoEventKind.Link => PalTracedKind.Link,
        PalIoEventKind.Delete => PalTracedKind.Delete,
        PalIoEventKind.SyncRange => PalTracedKind.SyncRange,
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "not an observed PAL operation"),
    };
}
