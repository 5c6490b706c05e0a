using System.Globalization;
using System.Reflection;
using System.Text.RegularExpressions;

namespace Cairn.Tests.OptionsModel;

/// <summary>
/// A default as docs/options.md and the XML docs state it (<c>2 s</c>, <c>250 µs</c>, <c>1 MiB</c>, <c>16384</c>,
/// <c>0.8</c>, <c>true</c>, an enum member, <c>null</c>, <c>none</c> for a required option), read from the start of
/// the text (what follows, such as <c>: never compress</c>, explains it), and checked against an option's value.
/// </summary>
internal static partial class StatedDefault
{
    private static readonly Dictionary<string, long> s_byteUnits = new() { ["KiB"] = 1L << 10, ["MiB"] = 1L << 20, ["GiB"] = 1L << 30 };

    private static readonly Dictionary<string, TimeSpan> s_timeUnits = new()
    {
        ["µs"] = TimeSpan.FromMicroseconds(1), ["ms"] = TimeSpan.FromMilliseconds(1), ["s"] = TimeSpan.FromSeconds(1),
        ["min"] = TimeSpan.FromMinutes(1),
    };

    /// <summary>
    /// Null if <paramref name="stated"/> says the value <paramref name="option"/> has on <paramref name="fresh"/>;
    /// otherwise why not.
    /// </summary>
    public static string? Mismatch(string stated, PropertyInfo option, object fresh)
    {
        var match = Leading().Match(stated.Replace("`", "", StringComparison.Ordinal));
        if (!match.Success)
            return $"'{stated}' is no default this test can read";
        if (match.Groups["word"].Value == "none")
            return OptionsTypes.IsRequired(option) ? null : $"'{stated}' says it is required, it is not a required member";
        if (OptionsTypes.IsRequired(option))
            return $"'{stated}': a required member has no default (say 'none')";

        object? actual = option.GetValue(fresh);
        var type = Nullable.GetUnderlyingType(option.PropertyType) ?? option.PropertyType;
        object? expected = Value(match, type);
        return Equals(expected, actual) ? null : $"'{stated}' reads as {Show(expected)}, a new {option.DeclaringType!.Name} has {Show(actual)}";
    }

    private static object? Value(Match match, Type type)
    {
        string word = match.Groups["word"].Value;
        if (word == "null")
            return null;
        if (word.Length > 0)
        {
            if (type == typeof(bool) && bool.TryParse(word, out bool flag))
                return flag;
            return type.IsEnum && Enum.TryParse(type, word, ignoreCase: false, out object? member) ? member : $"the word '{word}'";
        }
        decimal number = decimal.Parse(match.Groups["number"].Value, CultureInfo.InvariantCulture);
        string unit = match.Groups["unit"].Value;
        if (s_timeUnits.TryGetValue(unit, out var time))
            return type == typeof(TimeSpan) ? TimeSpan.FromTicks((long)(number * time.Ticks)) : $"a duration for a {type.Name}";
        if (type == typeof(TimeSpan))
            return $"{number} {unit}: a duration needs a time unit";
        decimal scaled = number * (s_byteUnits.TryGetValue(unit, out long bytes) ? bytes : 1);
        return type == typeof(int) ? (int)scaled : type == typeof(long) ? (long)scaled : type == typeof(double) ? (double)scaled
            : $"a number for a {type.Name}";
    }

    private static string Show(object? value) => value switch
    {
        null => "null",
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString()!,
    };

    [GeneratedRegex(@"^(?:(?<number>\d+(?:\.\d+)?)(?: (?<unit>KiB|MiB|GiB|µs|ms|s|min))?|(?<word>[A-Za-z]\w*))(?!\w)")]
    private static partial Regex Leading();
}
