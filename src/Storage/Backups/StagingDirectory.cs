using Cairn.Pal;

namespace Cairn.Backups;

/// <summary>
/// A hidden sibling of the directory a backup or restore produces, filled first and renamed into place only
/// when every file in it is complete and synced: a process killed before the rename leaves the target missing
/// (or as empty as it was), never half written. A staging folder left by such a kill is named
/// <c>.{target}.staging-{guid}</c>; the next backup, restore or compaction to the same target deletes it, and only it:
/// a live one's owner holds its lock (<see cref="OwnedFolder"/>).
/// </summary>
internal sealed class StagingDirectory : IDisposable
{
    private readonly string _target;
    private readonly OwnedFolder _folder;

    public StagingDirectory(string target)
    {
        _target = System.IO.Path.GetFullPath(target.TrimEnd(System.IO.Path.DirectorySeparatorChar));
        if (File.Exists(_target))
            throw new IOException($"'{_target}' is a file, not a directory");
        if (Directory.Exists(_target) && Directory.EnumerateFileSystemEntries(_target).Any())
            throw new IOException($"'{_target}' is not empty: a backup or restore goes into an empty or new directory");
        _folder = OwnedFolder.Create(_target, OwnedFolder.Staging);
    }

    /// <summary>The staging folder's path.</summary>
    public string Path => _folder.Path;

    public string Target => _target;

    /// <summary>A file inside the staging folder ('/'-separated relative path), its folders created.</summary>
    public string FilePath(string relativePath)
    {
        string path = System.IO.Path.Combine(Path, relativePath.Replace('/', System.IO.Path.DirectorySeparatorChar));
        Directory.CreateDirectory(System.IO.Path.GetDirectoryName(path)!);
        return path;
    }

    /// <summary>Syncs every folder of the staging tree (the files are synced by their writers), then renames it into place durably.</summary>
    public void Commit()
    {
        foreach (string folder in Directory.EnumerateDirectories(Path, "*", SearchOption.AllDirectories))
            PalFileSystem.SyncDirectory(folder);
        PalFileSystem.SyncDirectory(Path);
        PalFileSystem.RenameDurable(Path, _target);
        _folder.MovedAway();
    }

    /// <summary>Deletes the staging folder unless it was committed, then lets its lock go.</summary>
    public void Dispose() => _folder.Dispose();
}
