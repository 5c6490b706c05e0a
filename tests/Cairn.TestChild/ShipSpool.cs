using System.Globalization;
using Cairn.Shipping;

namespace Cairn.TestChild;

/// <summary>
/// The transport between the shipping test's primary and replica processes: a folder of shipped-entries streams, one
/// file per batch, named by the batch's first and last transaction so that name order is transaction order. A batch
/// appears whole (written to a temporary name, synced, renamed), so a reader never sees half of one; the last batch
/// stays, as the primary's record of where it stopped shipping.
/// </summary>
public static class ShipSpool
{
    private const string Extension = ".ship";
    private const string TemporaryExtension = ".tmp";

    /// <summary>Writes <paramref name="entries"/> (in order, at least one) as the next batch.</summary>
    public static void Write(string spool, IReadOnlyList<ShippedJournalEntry> entries)
    {
        string name = $"{entries[0].TransactionId:D20}-{entries[^1].TransactionId:D20}";
        string temporary = Path.Combine(spool, name + TemporaryExtension);
        using (var file = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            ShippedEntryStream.Write(file, entries);
            file.Flush(flushToDisk: true);
        }
        File.Move(temporary, Path.Combine(spool, name + Extension));
    }

    /// <summary>Removes batches a killed primary left half written.</summary>
    public static void RemoveTemporaryFiles(string spool)
    {
        foreach (var file in Directory.EnumerateFiles(spool, "*" + TemporaryExtension))
            File.Delete(file);
    }

    /// <summary>The batches in transaction order, each with its last transaction.</summary>
    public static List<(string Path, long Last)> Batches(string spool)
        => [.. Directory.EnumerateFiles(spool, "*" + Extension)
            .Select(path => (Path: path, Last: long.Parse(Path.GetFileNameWithoutExtension(path).AsSpan(21), CultureInfo.InvariantCulture)))
            .OrderBy(batch => batch.Last)];

    /// <summary>The last transaction spooled, or <paramref name="otherwise"/> when the spool is empty.</summary>
    public static long LastSpooled(string spool, long otherwise)
    {
        var batches = Batches(spool);
        return batches.Count == 0 ? otherwise : Math.Max(otherwise, batches[^1].Last);
    }
}
