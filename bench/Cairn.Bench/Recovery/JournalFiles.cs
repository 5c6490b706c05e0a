using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Bench.Recovery;

/// <summary>One journal file: its size on disk and how much of it has been written.</summary>
public readonly record struct JournalFileExtent(string Name, long Size, long Written);

/// <summary>
/// Reads an environment's <c>Journals/</c> folder from outside the engine: which journal files exist
/// (named by a 19-digit sequence number; spare <c>recyclable.*</c> files are not journals) and how far
/// each has been written. Journal files are pre-zeroed when created, so a fresh file's written part
/// ends with its last non-zero 4 KiB block; a recycled file still holds its old entries, which is why
/// the survey deletes the spares before it starts writing the journal it measures.
/// </summary>
public static unsafe class JournalFiles
{
    public const string DirectoryName = "Journals";

    private const int BlockSize = 4096;
    private const int ChunkSize = 1 << 20;

    public static string DirectoryOf(string environmentDirectory) => Path.Combine(environmentDirectory, DirectoryName);

    /// <summary>Journal files in log order (sequence number order), or none if the folder does not exist.</summary>
    public static IReadOnlyList<string> List(string environmentDirectory)
    {
        var directory = DirectoryOf(environmentDirectory);
        if (!Directory.Exists(directory))
            return [];
        return [.. Directory.EnumerateFiles(directory).Where(path => IsJournalName(Path.GetFileName(path))).Order(StringComparer.Ordinal)];
    }

    /// <summary>Deletes the spare journals a clean close keeps for reuse; returns how many there were.</summary>
    public static int DeleteSpares(string environmentDirectory)
    {
        var directory = DirectoryOf(environmentDirectory);
        if (!Directory.Exists(directory))
            return 0;
        var spares = Directory.EnumerateFiles(directory, "recyclable.*").ToArray();
        foreach (var spare in spares)
            File.Delete(spare);
        return spares.Length;
    }

    /// <summary>
    /// Every journal file with its exact written extent: the end of its last non-zero 4 KiB block,
    /// found by reading backwards from the end of the file. Reads with O_DIRECT, so measuring leaves
    /// nothing in the page cache for a later "cold" open to find.
    /// </summary>
    public static IReadOnlyList<JournalFileExtent> Measure(string environmentDirectory) =>
        [.. List(environmentDirectory).Select(path => Extent(path, exact: true))];

    /// <summary>
    /// Cheap running estimate of the bytes written to all journals, for deciding when to stop: a
    /// binary search for the first all-zero block of each file (the journal's log ends at one; an
    /// all-zero block inside an entry would only make the estimate low).
    /// </summary>
    public static long EstimateWritten(string environmentDirectory)
    {
        long total = 0;
        foreach (var path in List(environmentDirectory))
            total += Extent(path, exact: false).Written;
        return total;
    }

    private static bool IsJournalName(string name) =>
        name.Length >= 19 && name.AsSpan(0, 19).IndexOfAnyExceptInRange('0', '9') < 0
        && (name.Length == 19 || name[19] == '.');

    private static JournalFileExtent Extent(string path, bool exact)
    {
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Direct);
        long size = file.GetSize();
        var buffer = (byte*)NativeMemory.AlignedAlloc(ChunkSize, BlockSize);
        try
        {
            long written = exact ? LastNonZeroEnd(file, size, buffer) : FirstZeroBlock(file, size, buffer);
            return new JournalFileExtent(Path.GetFileName(path), size, written);
        }
        finally
        {
            NativeMemory.AlignedFree(buffer);
        }
    }

    private static long LastNonZeroEnd(PalFile file, long size, byte* buffer)
    {
        for (long end = size; end > 0;)
        {
            long start = Math.Max(0, end - ChunkSize);
            int length = (int)(end - start);
            var chunk = new Span<byte>(buffer, file.Read(new Span<byte>(buffer, length), start));
            int last = chunk.LastIndexOfAnyExcept((byte)0);
            if (last >= 0)
                return Math.Min(size, (start + last) / BlockSize * BlockSize + BlockSize);
            end = start;
        }
        return 0;
    }

    private static long FirstZeroBlock(PalFile file, long size, byte* buffer)
    {
        long low = 0, high = size / BlockSize; // blocks before low are written; high is a zero block or the end
        while (low < high)
        {
            long middle = low + (high - low) / 2;
            var block = new Span<byte>(buffer, file.Read(new Span<byte>(buffer, BlockSize), middle * BlockSize));
            if (block.IndexOfAnyExcept((byte)0) >= 0)
                low = middle + 1;
            else
                high = middle;
        }
        return low * BlockSize;
    }
}
