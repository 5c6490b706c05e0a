namespace Cairn.Backups;

/// <summary>
/// A hidden temporary folder of a backup, restore or compaction, named after what it belongs to: <c>.{owner}.{kind}-{guid}</c>
/// beside <c>{owner}</c>, the target directory or the environment's folder, and locked by its maker
/// (<see cref="StagingOwnerLock"/>) from before it exists until after it is gone. The kinds:
/// <list type="bullet">
/// <item><c>staging</c>: a target being built, renamed into place when complete (<see cref="StagingDirectory"/>);</item>
/// <item><c>compact</c>: a compacting backup's work (the intermediate plain copy, and for a stream the compacted copy).</item>
/// </list>
/// A process killed mid-operation leaves its folder with the lock let go; every backup, restore or compaction whose
/// target or environment is <c>{owner}</c> deletes such folders first (<see cref="DeleteStale(string)"/>), and only those.
/// </summary>
internal sealed class OwnedFolder : IDisposable
{
    public const string Staging = "staging";
    public const string Compaction = "compact";
    private static readonly string[] Kinds = [Staging, Compaction];

    private readonly FileStream _lock;
    private bool _movedAway;
    private bool _disposed;

    private OwnedFolder(string path, FileStream ownerLock)
    {
        Path = path;
        _lock = ownerLock;
    }

    /// <summary>The folder's path.</summary>
    public string Path { get; }

    /// <summary>Deletes the dead temporary folders of <paramref name="owner"/> (a full path), then makes one of <paramref name="kind"/>, locked.</summary>
    public static OwnedFolder Create(string owner, string kind)
    {
        var (parent, name) = Split(owner);
        Directory.CreateDirectory(parent);
        DeleteStale(parent, name);
        var (path, held) = StagingOwnerLock.Take(() => System.IO.Path.Combine(parent, $".{name}.{kind}-{Guid.NewGuid():N}"));
        try
        {
            Directory.CreateDirectory(path);
        }
        catch
        {
            StagingOwnerLock.Release(path, held);
            throw;
        }
        return new OwnedFolder(path, held);
    }

    /// <summary>Deletes every dead temporary folder of <paramref name="owner"/> (a full path), of every kind.</summary>
    public static void DeleteStale(string owner)
    {
        var (parent, name) = Split(owner);
        if (Directory.Exists(parent))
            DeleteStale(parent, name);
    }

    /// <summary>
    /// <see cref="DeleteStale(string)"/> for an environment being backed up or compacted: its parent folder may not be
    /// the caller's to list or write, and that must not fail the backup, so what cannot be done now is left for a later one.
    /// </summary>
    public static void TryDeleteStale(string owner) => StagingOwnerLock.TryDelete(() => DeleteStale(owner));

    /// <summary>The folder was renamed into place: it is no longer this one's to delete.</summary>
    public void MovedAway() => _movedAway = true;

    /// <summary>Deletes the folder unless it was moved away, then lets its lock go.</summary>
    public void Dispose()
    {
        if (_disposed)
            return;
        _disposed = true;
        // Left behind if it cannot go, it is never mistaken for a target (its name says it is temporary), and with
        // its lock let go the next operation on the same owner deletes it.
        if (!_movedAway)
            StagingOwnerLock.TryDelete(() => Directory.Delete(Path, recursive: true));
        StagingOwnerLock.Release(Path, _lock);
    }

    private static void DeleteStale(string parent, string name)
    {
        foreach (string kind in Kinds)
            StagingOwnerLock.DeleteStale(parent, $".{name}.{kind}-");
    }

    private static (string Parent, string Name) Split(string owner)
    {
        string full = System.IO.Path.GetFullPath(owner.TrimEnd(System.IO.Path.DirectorySeparatorChar));
        string parent = System.IO.Path.GetDirectoryName(full) ?? throw new IOException($"'{full}' has no parent directory");
        return (parent, System.IO.Path.GetFileName(full));
    }
}
