namespace Cairn.Diagnostics;

/// <summary>
/// The one spelling of each kind that the JSON and the text summary share, so a tool and a person
/// reading the same environment's statistics see the same words.
/// </summary>
internal static class IoOperationKindNames
{
    /// <summary>Every kind, in the order summaries list them.</summary>
    public static readonly IoOperationKind[] All = [IoOperationKind.JournalWrite, IoOperationKind.DataFlush, IoOperationKind.DataSync];

    public static bool IsDefined(IoOperationKind kind) => kind is >= IoOperationKind.JournalWrite and <= IoOperationKind.DataSync;

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
