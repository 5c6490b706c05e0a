using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// File-system calls whose failure the journal answers with a fallback instead of an error: a file
/// that cannot be renamed is deleted instead, one that cannot be deleted is left for a later attempt.
/// </summary>
internal static class BestEffortFiles
{
    public static bool TryRename(string from, string to)
    {
        try
        {
            PalFileSystem.RenameDurable(from, to);
            return true;
        }
        catch (PalIOException)
        {
            return false;
        }
    }

    /// <summary>Deletes what a failed operation left behind, if anything.</summary>
    public static void TryDelete(string path)
    {
        try
        {
            if (File.Exists(path))
                PalFileSystem.DeleteFile(path);
        }
        catch (PalIOException)
        {
        }
    }
}
