namespace Cairn.Backups;

/// <summary>
/// Who owns a temporary folder of a backup, restore or compaction (<see cref="OwnedFolder"/>): its owner holds an
/// exclusive lock on the sibling file <c>{folder}.lock</c> from before the folder exists until after it is renamed
/// into place or deleted. FileShare.None is an flock(LOCK_EX) on Unix, which the kernel releases when the process
/// dies, so a folder whose lock can be taken belongs to a process that was killed and may go; one whose lock is held
/// belongs to a live operation and is left alone. The lock is a sibling rather than inside the folder so a folder
/// renamed into place holds only the environment's files.
/// </summary>
/// <remarks>
/// Opening a file and locking it are two steps, so a lock file is created under a pending name
/// (<c>{folder}.lock-pending</c>) and renamed to its real name only once locked: a <c>.lock</c> file is never seen
/// unlocked while its owner lives. A cleaner that takes a pending file's lock in the moment between its owner's two
/// steps makes the owner's lock fail; the owner then starts again under a new name.
/// </remarks>
internal static class StagingOwnerLock
{
    private const string LockSuffix = ".lock";
    private const string PendingSuffix = ".lock-pending";
    private const int TakeAttempts = 4;

    /// <summary>Takes the lock of the folder <paramref name="folder"/> (not created yet): a new file, held.</summary>
    /// <returns>Null if a cleaner took the new lock file first (the caller picks another name); the lock otherwise.</returns>
    public static FileStream? TryTake(string folder)
    {
        FileStream held;
        try
        {
            held = new FileStream(folder + PendingSuffix, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.None);
        }
        catch (IOException) when (File.Exists(folder + PendingSuffix))
        {
            return null; // created, but a cleaner locked it before this process could (and deletes it)
        }
        try
        {
            File.Move(folder + PendingSuffix, folder + LockSuffix);
            return held;
        }
        catch
        {
            held.Dispose();
            TryDelete(() => File.Delete(folder + PendingSuffix));
            throw;
        }
    }

    /// <summary>Takes a lock under a name <paramref name="newName"/> makes, again under a new one if a cleaner got in first.</summary>
    public static (string Folder, FileStream Lock) Take(Func<string> newName)
    {
        for (int attempt = 1; ; attempt++)
        {
            string folder = newName();
            if (TryTake(folder) is { } held)
                return (folder, held);
            if (attempt == TakeAttempts)
                throw new IOException($"could not take the lock '{folder}{LockSuffix}': another process kept locking its new lock files");
        }
    }

    /// <summary>Lets the lock of <paramref name="folder"/> go (after the folder is renamed or deleted): deletes its file, then closes it.</summary>
    public static void Release(string folder, FileStream held)
    {
        TryDelete(() => File.Delete(folder + LockSuffix));
        held.Dispose();
    }

    /// <summary>
    /// Deletes the folders (and lock files) in <paramref name="parent"/> whose names start with <paramref name="prefix"/>
    /// that no live process owns: those whose lock it can take, and folders without a lock file (left by a build before
    /// the lock, or whose deletion failed before the lock was let go).
    /// </summary>
    public static void DeleteStale(string parent, string prefix)
    {
        foreach (string folder in Directory.EnumerateDirectories(parent, prefix + "*"))
        {
            if (!File.Exists(folder + LockSuffix))
                TryDelete(() => Directory.Delete(folder, recursive: true));
        }
        foreach (string lockFile in Directory.EnumerateFiles(parent, prefix + "*" + LockSuffix))
        {
            string folder = lockFile[..^LockSuffix.Length];
            if (TryLock(lockFile) is not { } held)
                continue; // its owner is alive (or another cleaner got there first)
            if (Directory.Exists(folder))
                TryDelete(() => Directory.Delete(folder, recursive: true));
            if (!Directory.Exists(folder))
                Release(folder, held);
            else
                held.Dispose();
        }
        foreach (string pending in Directory.EnumerateFiles(parent, prefix + "*" + PendingSuffix))
        {
            // No folder is made before its lock is renamed into place: a pending file whose lock is free was left by a
            // process killed between the two steps, or is one this cleaner now takes from its owner (who starts again).
            if (TryLock(pending) is not { } held)
                continue;
            TryDelete(() => File.Delete(pending));
            held.Dispose();
        }
    }

    private static FileStream? TryLock(string path)
    {
        try
        {
            return new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.None);
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Runs a delete, leaving what an I/O or permission error keeps for a later cleanup (names say it is temporary).</summary>
    public static void TryDelete(Action delete)
    {
        try
        {
            delete();
        }
        catch (IOException)
        {
            // Left for the next operation on the same target or environment: its name says it is temporary, nobody opens it.
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
