using Cairn.Pal;
using Cairn.Paging;

namespace Cairn.Opening;

/// <summary>
/// Creates a new data file atomically: it is formatted (pages and both header copies, synced) under a
/// temporary name and only then renamed to <see cref="StorageEnvironment.DataFileName"/>, with the
/// directory synced. A crash at any point leaves either no data file (and at most a temporary one,
/// emptied by the next creator) or a complete one, so an empty or headerless data file never exists
/// legitimately and is refused rather than taken for a new environment (docs/decisions.md, reliability 4).
/// </summary>
internal static class DataFileCreation
{
    public const string TemporarySuffix = ".creating";

    /// <summary>
    /// Makes sure <paramref name="dataPath"/> exists, creating it if needed. Returns whether this call
    /// created it (its directory entry is then durable; the caller syncs the parent if the directory is new).
    /// </summary>
    public static bool EnsureExists(string dataPath, TimeSpan lockWait)
    {
        string temporary = dataPath + TemporarySuffix;
        if (File.Exists(dataPath))
        {
            DeleteLeftover(temporary);
            return false;
        }

        // Creators take turns on the temporary file's lock, and each checks again under it: the one before
        // may have finished (renamed its file into place) while this one waited.
        using var file = DataFile.OpenForCreation(temporary, lockWait);
        if (File.Exists(dataPath))
        {
            DeleteLeftover(temporary);
            return false;
        }
        file.DiscardContents();
        using (var scratch = new ScratchAllocator())
            EnvironmentFormatter.Format(file, new HeaderStore(file), scratch);
        // Still holding the lock: a creator waiting for it must find the data file in place once it gets it.
        PalFileSystem.RenameDurable(temporary, dataPath);
        return true;
    }

    /// <summary>A temporary file beside a complete data file is an abandoned creation: nothing refers to it.</summary>
    private static void DeleteLeftover(string temporary)
    {
        if (!File.Exists(temporary))
            return;
        try
        {
            PalFileSystem.DeleteFile(temporary);
        }
        catch (PalIOException) when (!File.Exists(temporary))
        {
            // Another opener removed it first.
        }
    }
}
