using System.Globalization;

namespace Cairn.Journal.Files;

/// <summary>
/// Names in an environment's <c>Journals/</c> folder: journals are <c>{sequence:D19}.journal</c>, so
/// a plain name sort is log order; synced journals kept for reuse are <c>recyclable.{n:D19}</c>,
/// which recovery never reads.
/// </summary>
internal static class JournalFileName
{
    public const string DirectoryName = "Journals";
    public const string Extension = ".journal";
    public const string RecyclablePrefix = "recyclable.";
    private const int Digits = 19;

    public static string For(long sequence) => sequence.ToString("D19", CultureInfo.InvariantCulture) + Extension;

    public static string Recyclable(long number) => RecyclablePrefix + number.ToString("D19", CultureInfo.InvariantCulture);

    public static bool TryParse(string fileName, out long sequence)
        => TryParseDigits(fileName, prefix: "", suffix: Extension, out sequence);

    public static bool TryParseRecyclable(string fileName, out long number)
        => TryParseDigits(fileName, RecyclablePrefix, suffix: "", out number);

    private static bool TryParseDigits(string fileName, string prefix, string suffix, out long value)
    {
        value = 0;
        if (fileName.Length != prefix.Length + Digits + suffix.Length
            || !fileName.StartsWith(prefix, StringComparison.Ordinal) || !fileName.EndsWith(suffix, StringComparison.Ordinal))
            return false;
        var digits = fileName.AsSpan(prefix.Length, Digits);
        foreach (char c in digits)
            if (c is < '0' or > '9')
                return false;
        return long.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out value);
    }
}
