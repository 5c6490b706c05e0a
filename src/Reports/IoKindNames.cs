using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The one spelling of each kind that the JSON, the text summary and the HTML page share, so a tool and a person
/// reading the same environment's statistics see the same words.
/// </summary>
internal static class IoKindNames
{
    /// <summary>Every kind, in the order the engine's summaries list them (by value).</summary>
    public static readonly IoOperationKind[] All = Enum.GetValues<IoOperationKind>();

    public static string CamelCase(IoOperationKind kind) => kind switch
    {
        IoOperationKind.JournalWrite => "journalWrite",
        IoOperationKind.DataFlush => "dataFlush",
        IoOperationKind.DataSync => "dataSync",
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "not an I/O operation kind"),
    };

    public static bool TryParse(string? name, out IoOperationKind kind)
    {
        foreach (var candidate in All)
        {
            if (string.Equals(CamelCase(candidate), name, StringComparison.Ordinal))
            {
                kind = candidate;
                return true;
            }
        }
        kind = default;
        return false;
    }
}
