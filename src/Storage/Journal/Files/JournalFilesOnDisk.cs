using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>One file of a journal folder as it stands on disk (for inspection, not for the append path).</summary>
internal readonly record struct JournalFileOnDisk(string FileName, string FilePath, long Number, bool IsRecyclable, long Bytes, long LinkCount);

/// <summary>
/// Lists a journal folder without touching the inventory's lists or locks: a look at the directory, which the
/// writer, the flusher and the spare thread may be changing meanwhile, so a file gone between the listing and
/// its stat is left out rather than reported.
/// </summary>
internal static class JournalFilesOnDisk
{
    /// <summary>Journals in sequence order, then the files kept for reuse in number order; other names are not Cairn's and are skipped.</summary>
    public static List<JournalFileOnDisk> List(string directory)
    {
        var files = new List<JournalFileOnDisk>();
        if (!Directory.Exists(directory))
            return files;
        foreach (var path in Directory.EnumerateFiles(directory))
        {
            string name = Path.GetFileName(path);
            bool journal = JournalFileName.TryParse(name, out long number);
            if (!journal && !JournalFileName.TryParseRecyclable(name, out number))
                continue;
            try
            {
                files.Add(new JournalFileOnDisk(name, path, number, !journal, new FileInfo(path).Length, PalFileSystem.LinkCount(path)));
            }
            catch (Exception e) when (e is FileNotFoundException or PalFileNotFoundException)
            {
                // Released or renamed since the listing.
            }
        }
        files.Sort(static (a, b) => a.IsRecyclable != b.IsRecyclable ? a.IsRecyclable.CompareTo(b.IsRecyclable) : a.Number.CompareTo(b.Number));
        return files;
    }
}
