using System.Globalization;
using System.Net;
using System.Text.RegularExpressions;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// What the HTML report's charts and tables share: escaping, numbers for SVG coordinates, each kind's colour and
/// name, short labels for files, and the one-line description of an operation that hovering shows.
/// </summary>
internal static partial class IoHtml
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public const string SlowColor = "#d1495b";

    public static string Encode(string text) => WebUtility.HtmlEncode(text);

    /// <summary>An SVG coordinate: one decimal is finer than a pixel.</summary>
    public static string Number(double value) => value.ToString("0.#", Invariant);

    public static string Color(IoOperationKind kind) => kind switch
    {
        IoOperationKind.JournalWrite => "#3b6fb6",
        IoOperationKind.DataFlush => "#2a9d8f",
        _ => "#8e6bbf",
    };

    public static string Name(IoOperationKind kind) => IoKindNames.CamelCase(kind);

    public static string Plural(IoOperationKind kind) => kind switch
    {
        IoOperationKind.JournalWrite => "journal writes",
        IoOperationKind.DataFlush => "data-file flushes",
        _ => "data-file syncs",
    };

    /// <summary>A file's name, and a journal's as "journal N" rather than 19 digits.</summary>
    public static string FileLabel(string path)
    {
        string name = Path.GetFileName(path);
        var journal = JournalName().Match(name);
        return journal.Success ? "journal " + journal.Groups[1].Value : name.Length > 0 ? name : path;
    }

    public static string Describe(in IoOperation operation, DateTime axisStart)
    {
        string failed = operation.Failed ? " · FAILED" : "";
        return string.Create(Invariant,
            $"#{operation.Sequence} {Name(operation.Kind)}{failed} · {IoTimeAxis.Duration(operation.Duration)} · {IoStatsFormat.Bytes(operation.Bytes)} · " +
            $"tx {IoStatsFormat.Transactions(operation)}{CarriedPart(operation)} · at +{IoTimeAxis.Duration(operation.StartUtc - axisStart)} " +
            $"({operation.StartUtc:HH:mm:ss.ffffff} UTC) · {operation.FilePath}");
    }

    private static string CarriedPart(in IoOperation operation)
        => operation.Environments.Count == 0 ? "" : " · carried " + IoStatsFormat.CarriedInFull(operation);

    [GeneratedRegex(@"^0*(\d+)\.journal$")]
    private static partial Regex JournalName();
}
