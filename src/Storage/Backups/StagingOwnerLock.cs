namespace Cairn.Backups;

/// <summary>
/// Who owns a staging folder: its owner holds an exclusive lock on the sibling file <c>{staging}.lock</c> from before
/// the folder exists until after it is renamed into place or deleted. FileShare.None is an flock(LOCK_EX) on Unix,
/// which the kernel releases when the process dies, so a staging folder whose lock can be taken belongs to a process
/// that was killed and may go; one whose lock is held belongs to a live backup or restore and is left alone. The lock
/// is a sibling rather than inside the folder so the folder renamed into place holds only the environment's files.
/// </summary>
internal static class StagingOwnerLock
{
    private const string LockSuffix = ".lock";

    /// <summary>Takes the lock of the staging folder <paramref name="staging"/> (not created yet): a new file, held.</summary>
    public static FileStream Take(string staging)
        => new(staging + LockSuffix, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.None);

    /// <summary>Lets the lock of <paramref name="staging"/> go (after the folder is renamed or deleted): deletes its file, then closes it.</summary>
    public static void Release(string staging, FileStream held)
    {
        TryDelete(() => File.Delete(staging + LockSuffix));
        held.Dispose();
    }

    /// <summary>
    /// Deletes the staging folders (and lock files) of <paramref name="target"/> in <paramref name="parent"/> that no live
    /// process owns: those whose lock it can take, and folders without a lock file (left by a build before the lock).
    /// </summary>
    public static void DeleteStale(string parent, string target)
    {
        string prefix = $".{target}.staging-";
        foreach (string folder in Directory.EnumerateDirectories(parent, prefix + "*"))
        {
            if (!File.Exists(folder + LockSuffix))
                TryDelete(() => Directory.Delete(folder, recursive: true));
        }
        foreach (string lockFile in Directory.EnumerateFiles(parent, prefix + "*" + LockSuffix))
        {
            string folder = lockFile[..^LockSuffix.Length];
            FileStream held;
            try
            {
                held = new FileStream(lockFile, FileMode.Open, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.None);
            }
            catch (IOException)
            {
                continue; // its owner is alive (or another cleaner got there first)
            }
            catch (UnauthorizedAccessException)
            {
                continue;
            }
            if (Directory.Exists(folder))
                TryDelete(() => Directory.Delete(folder, recursive: true));
            if (!Directory.Exists(folder))
                Release(folder, held);
            else
                held.Dispose();
        }
    }

    /// <summary>Runs a delete, leaving what an I/O or permission error keeps for a later cleanup (names say it is staging).</summary>
    public static void TryDelete(Action delete)
    {
        try
        {
            delete();
        }
        catch (IOException)
        {
            // Left for the next backup or restore to the same target: its name says it is staging, nobody opens it.
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
