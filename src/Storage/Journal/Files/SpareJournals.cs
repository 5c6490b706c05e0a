using Cairn.Diagnostics;
using Cairn.Pal;
using Microsoft.Extensions.Logging;

namespace Cairn.Journal.Files;

/// <summary>
/// Spare journals: files created and pre-zeroed ahead of the switch that will need them, so that a commit
/// that fills its journal pays for a rename, not for writing up to <see cref="JournalSizing.MaxSize"/>
/// bytes of zeros. One is wanted at open, and once per journal when it passes half full, if no spare of
/// the size the inventory expects the next journal to need is ready. The inventory names and keeps them.
/// </summary>
internal sealed class SpareJournals : IDisposable
{
    private readonly JournalInventory _inventory;
    private readonly ILogger _logger;
    private readonly bool _enabled;
    private readonly SparePreparationThread _thread;
    private volatile bool _wanted;
    private long _checkedFor = -1; // the journal last checked at half full; only the writer's NoteAppended touches it

    /// <param name="inventory">The journal files, where a prepared spare is handed over.</param>
    /// <param name="logger">Where a failed preparation is logged (the switch then creates the file itself).</param>
    /// <param name="enabled">Off: no spare is ever prepared, and every switch without a recycled file creates its own.</param>
    public SpareJournals(JournalInventory inventory, ILogger logger, bool enabled = true)
    {
        _inventory = inventory;
        _logger = logger;
        _enabled = enabled;
        _wanted = enabled;
        _thread = new SparePreparationThread(PrepareNow);
    }

    /// <summary>Whether the next switch has no spare ready: <see cref="Request"/> would start preparing one.</summary>
    public bool Wanted => _wanted;

    /// <summary>When <see cref="Wanted"/>, starts <see cref="PrepareNow"/> on a thread of its own (unless that is under way).</summary>
    public void Request()
    {
        if (_wanted)
            _thread.Start();
    }

    /// <summary>The writer, after a switch: the spare it may have used is gone.</summary>
    public void NoteSwitched() => _wanted = _enabled && _inventory.SpareSizeWanted() > 0;

    /// <summary>The writer, after each append: once per journal, when it passes half full, asks whether a spare is wanted.</summary>
    public void NoteAppended(JournalFile journal)
    {
        // Once per file: a spare that failed is not asked for again on every commit.
        if (!_enabled || _checkedFor == journal.Sequence || journal.WritePosition * 2 < journal.Size)
            return;
        _checkedFor = journal.Sequence;
        _wanted = _inventory.SpareSizeWanted() > 0;
    }

    /// <summary>
    /// When <see cref="Wanted"/>, creates and pre-zeroes a spare on the calling thread and hands it to the
    /// inventory. A failure (a full disk, say) is logged and leaves the next switch to create its file itself.
    /// </summary>
    public void PrepareNow()
    {
        if (!_wanted)
            return;
        _wanted = false;
        if (!_inventory.TryReserveSpare(out string? path, out long size))
            return;
        try
        {
            // Allocated, written with zeros and synced. Its name need not be durable yet: the rename that
            // makes it a journal syncs the directory, and a spare lost in a crash is just not there.
            using (PalFile.OpenJournal(path, size))
            {
            }
        }
        catch (Exception e) when (e is PalIOException or IOException or UnauthorizedAccessException)
        {
            BestEffortFiles.TryDelete(path);
            Log.JournalSpareNotPrepared(_logger, e, path, size);
            return;
        }
        _inventory.AddSpare(new RecyclableJournal(path, size));
    }

    /// <summary>Waits for a spare under way; none is started after this.</summary>
    public void Dispose() => _thread.Dispose();
}
