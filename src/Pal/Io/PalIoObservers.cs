namespace Cairn.Pal;

/// <summary>What an observed operation did (<see cref="IPalIoObserver"/>).</summary>
/// <remarks>Cairn.Pal.Testing maps each to its public <c>PalTracedKind</c> of the same name.</remarks>
internal enum PalIoEventKind
{
    Create,
    Write,
    Extend,
    Truncate,
    Sync,
    SyncDirectory,
    Rename,
    Link,
    Delete,
    SyncRange,
}

/// <summary>
/// Sees every write, size change, sync and directory operation that goes through the managed PAL, with full paths,
/// in completion order. The seam that Cairn.Pal.Testing's I/O recorder plugs into; nothing in this assembly
/// implements it.
/// </summary>
internal interface IPalIoObserver
{
    void Observe(PalIoEventKind kind, string path, long offset, byte[]? data, long size, string? otherPath, bool durable);
}

/// <summary>The observers in place: none outside tests, where each PAL operation pays one static read (<see cref="IsActive"/>).</summary>
internal static class PalIoObservers
{
    // Replaced whole (copy on write) so that Record reads it without a lock. Guards replacing it: Add and Remove.
    private static readonly Lock s_gate = new();
    private static IPalIoObserver[] s_active = [];

    public static bool IsActive => Volatile.Read(ref s_active).Length != 0;

    public static void Add(IPalIoObserver observer)
    {
        lock (s_gate)
            s_active = [.. s_active, observer];
    }

    public static void Remove(IPalIoObserver observer)
    {
        lock (s_gate)
            s_active = s_active.Where(o => o != observer).ToArray();
    }

    public static void Record(PalIoEventKind kind, string path, long offset = 0, byte[]? data = null, long size = 0,
        string? otherPath = null, bool durable = false)
    {
        path = Path.GetFullPath(path);
        otherPath = otherPath is null ? null : Path.GetFullPath(otherPath);
        foreach (var observer in Volatile.Read(ref s_active))
            observer.Observe(kind, path, offset, data, size, otherPath, durable);
    }
}
