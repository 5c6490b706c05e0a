using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;

namespace Cairn.Bench.Recovery;

/// <summary>Walks the valid entries of an environment's journals in log order, each file up to its first invalid entry.</summary>
internal static unsafe class JournalWalk
{
    /// <summary>One valid entry: its bytes (valid only during the call) and what validation found.</summary>
    public delegate void EntryVisitor(byte* entry, in JournalEntryValidation validation);

    public static void ValidEntries(string environmentDirectory, EntryVisitor visit)
    {
        using var window = new JournalReadWindow(readAhead: true);
        foreach (var path in JournalFiles.List(environmentDirectory))
        {
            using var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
            window.Reset(file);
            for (long offset = 0; ; )
            {
                var validation = window.Validate(offset, out byte* entry);
                if (!validation.IsValid)
                    break;
                visit(entry, validation);
                offset += validation.EntrySize;
            }
        }
    }
}
