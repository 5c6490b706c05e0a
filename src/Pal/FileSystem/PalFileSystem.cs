using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>What a directory's file system offers; see <see cref="PalFileSystem.GetInfo"/>.</summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public readonly record struct PalFileSystemInfo
{
    /// <summary>Bytes free for an unprivileged writer.</summary>
    public required long FreeBytes { get; init; }

    /// <summary>The file system's size in bytes.</summary>
    public required long TotalBytes { get; init; }

    /// <summary>The file system's type number (statfs f_type on Linux; 0 where the OS gives none).</summary>
    public required long FileSystemType { get; init; }

    /// <summary>The file system's block size in bytes.</summary>
    public required int BlockSize { get; init; }

    /// <summary>Whether direct (unbuffered) I/O works there: probed by opening a file with O_DIRECT and writing an aligned block.</summary>
    public required bool SupportsDirectIO { get; init; }

    /// <summary>Whether the file system keeps its data in memory only (tmpfs, ramfs): a sync or direct write there proves nothing.</summary>
    public required bool IsVolatile { get; init; }
}

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
        return new PalFileSystemInfo
        {
            FreeBytes = info.FreeBytes, TotalBytes = info.TotalBytes, FileSystemType = info.FsType, BlockSize = info.BlockSize,
            SupportsDirectIO = info.SupportsDirectIo != 0, IsVolatile = info.IsVolatile != 0,
        };
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
