using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>What a directory's file system offers; see <see cref="PalFileSystem.GetInfo"/>.</summary>
public readonly record struct PalFileSystemInfo(
    long FreeBytes, long TotalBytes, long FileSystemType, int BlockSize, bool SupportsDirectIO, bool IsVolatile);

/// <summary>Path-level operations with the durability the engine needs (directory syncs after renames and links).</summary>
public static class PalFileSystem
{
    /// <summary>Deletes a file (unlink / DeleteFileW). The directory is not synced: follow with <see cref="SyncDirectory"/> to make the delete durable.</summary>
    /// <exception cref="PalFileNotFoundException">There is no such file.</exception>
    /// <exception cref="PalIOException">Any other failure, with the OS error.</exception>
    public static void DeleteFile(string path)
    {
        Call(NativeMethods.cairn_delete_file(Init(path), out int osError), osError, "deleting a file", path);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Delete, path);
    }

    /// <summary>Syncs a directory, so that files created, renamed or deleted in it survive a crash (fsync of the directory; a no-op on Windows, where NTFS journals its metadata).</summary>
    /// <exception cref="PalIOException">The directory could not be opened or synced.</exception>
    public static void SyncDirectory(string path)
    {
        Call(NativeMethods.cairn_sync_directory(Init(path), out int osError), osError, "syncing a directory", path);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.SyncDirectory, path);
    }

    /// <summary>Renames and syncs the directories involved, so the rename survives a crash.</summary>
    public static void RenameDurable(string from, string to)
    {
        Call(NativeMethods.cairn_rename_durable(Init(from), to, out int osError), osError, $"renaming to '{to}'", from);
        if (PalIoObservers.IsActive)
        {
            // The directory syncs persist every earlier change to those directories too (a create, say),
            // so they are traced as what they are, not only as a durable rename.
            PalIoObservers.Record(PalIoEventKind.Rename, from, otherPath: to, durable: true);
            RecordDirectorySyncs(from, to);
        }
    }

    /// <summary>Creates <paramref name="newLink"/> as another name of <paramref name="existing"/> and syncs its directory.</summary>
    public static void HardLink(string existing, string newLink)
    {
        Call(NativeMethods.cairn_hard_link(Init(existing), newLink, out int osError), osError, $"hard-linking as '{newLink}'", existing);
        if (PalIoObservers.IsActive)
        {
            PalIoObservers.Record(PalIoEventKind.Link, existing, otherPath: newLink, durable: true);
            RecordDirectorySyncs(newLink, newLink);
        }
    }

    private static void RecordDirectorySyncs(string a, string b)
    {
        string first = Path.GetDirectoryName(Path.GetFullPath(a))!, second = Path.GetDirectoryName(Path.GetFullPath(b))!;
        PalIoObservers.Record(PalIoEventKind.SyncDirectory, first);
        if (!string.Equals(first, second, StringComparison.Ordinal))
            PalIoObservers.Record(PalIoEventKind.SyncDirectory, second);
    }

    /// <summary>True when both paths name the same file (same device and inode / volume and file index).</summary>
    public static bool SameFile(string a, string b)
    {
        Call(NativeMethods.cairn_same_file(Init(a), b, out int same, out int osError), osError, $"comparing with '{b}'", a);
        return same != 0;
    }

    /// <summary>The number of hard links (names) the file has: 1 for a file with no other name.</summary>
    /// <exception cref="PalFileNotFoundException">There is no such file.</exception>
    public static long LinkCount(string path)
    {
        Call(NativeMethods.cairn_link_count(Init(path), out long count, out int osError), osError, "reading the link count", path);
        return count;
    }

    /// <summary>Free space, file system type, and whether O_DIRECT really works in <paramref name="directory"/> (probed).</summary>
    public static PalFileSystemInfo GetInfo(string directory)
    {
        Call(NativeMethods.cairn_fs_info_get(Init(directory), out var info, out int osError), osError, "probing the file system", directory);
        return new PalFileSystemInfo(info.FreeBytes, info.TotalBytes, info.FsType, info.BlockSize,
            info.SupportsDirectIo != 0, info.IsVolatile != 0);
    }

    private static string Init(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        PalLibrary.EnsureInitialized();
        return path;
    }

    private static void Call(int status, int osError, string operation, string path)
        => PalErrors.ThrowIfFailed(status, osError, operation, path);
}
