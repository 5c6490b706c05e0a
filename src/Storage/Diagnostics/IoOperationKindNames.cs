namespace Cairn.Diagnostics;

/// <summary>The kinds of <see cref="IoOperationKind"/> there are, for checking a recorded kind and listing summaries.</summary>
internal static class IoOperationKindNames
{
    /// <summary>Every kind, in the order summaries list them.</summary>
    public static readonly IoOperationKind[] All = [IoOperationKind.JournalWrite, IoOperationKind.DataFlush, IoOperationKind.DataSync];

    public static bool IsDefined(IoOperationKind kind) => kind is >= IoOperationKind.JournalWrite and <= IoOperationKind.DataSync;
}
