using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn.Opening;

/// <summary>What a read-only open leaves for the environment to serve reads from.</summary>
internal sealed record ReadOnlyOpened(
    DataFile DataFile,
    FileHeader Header,
    ScratchAllocator Scratch,
    EnvironmentState State,
    FreeSpaceMap FreeSpace,
    long TransactionsReplayed,
    TornJournalTail? TornTail);

/// <summary>
/// Opens an existing environment without changing a byte, a name or a size on disk: the data file read-only (and
/// locked as a writer locks it, so no writer runs meanwhile), the header copies read but never repaired, bytes past
/// the last whole page left where they are, and the journals replayed into memory only (nothing spilled, deleted,
/// cut or linked; a torn tail is reported). Whatever would need a change is refused with a typed exception.
/// </summary>
internal static class ReadOnlyOpener
{
    public static ReadOnlyOpened Open(string directory, string dataFileName, TimeSpan lockWait, long maxScratchBytes, ILogger logger)
    {
        if (!Directory.Exists(directory))
            throw new EnvironmentNotFoundException(directory, File.Exists(directory)
                ? "a file, not an environment's directory"
                : "no such directory (a read-only open creates nothing)");
        string dataPath = Path.Combine(directory, dataFileName);
        if (!File.Exists(dataPath))
            throw new EnvironmentNotFoundException(directory, File.Exists(dataPath + DataFileCreation.TemporarySuffix)
                ? $"no {dataFileName}, only the temporary file of a creation that never finished: the environment was never created"
                : $"not a Cairn environment (no {dataFileName}; a read-only open creates nothing)");

        var dataFile = DataFile.Open(dataPath, lockWait, readOnly: true);
        var scratch = new ScratchAllocator();
        try
        {
            var headers = StateRecovery.LoadHeaders(dataFile, logger, readOnly: true);
            // Every rebuilt page stays in memory: there is nowhere else to put it.
            var (state, freeSpace, recovery) = StateRecovery.Recover(Path.Combine(directory, JournalFileName.DirectoryName), headers.Current,
                dataFile, scratch, maxScratchBytes, logger, keepSynced: false, readOnly: true);
            return new ReadOnlyOpened(dataFile, headers.Current, scratch, state, freeSpace, recovery.TransactionsReplayed, recovery.TornTail);
        }
        catch
        {
            scratch.Dispose();
            dataFile.Dispose();
            throw;
        }
    }
}
