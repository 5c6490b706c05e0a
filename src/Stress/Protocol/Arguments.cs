using System.Globalization;

namespace Cairn.Stress.Protocol;

/// <summary>
/// The child's command line: <c>--name value</c> pairs, taken out one by one by whoever owns them; whatever is
/// left over at the end is a mistake (a typo must not silently run with defaults).
/// </summary>
internal sealed class Arguments
{
    private readonly Dictionary<string, string> _values = new(StringComparer.Ordinal);

    public Arguments(IEnumerable<string> pairs)
    {
        using var items = pairs.GetEnumerator();
        while (items.MoveNext())
        {
            string name = items.Current;
            if (!name.StartsWith("--", StringComparison.Ordinal))
                throw new ArgumentException($"expected an option, found '{name}'");
            if (!items.MoveNext())
                throw new ArgumentException($"option {name} has no value");
            if (!_values.TryAdd(name, items.Current))
                throw new ArgumentException($"option {name} is given twice");
        }
    }

    public string? TakeString(string name) => _values.Remove(name, out var value) ? value : null;

    public long? TakeLong(string name) => TakeString(name) is { } text ? long.Parse(text, CultureInfo.InvariantCulture) : null;

    public int? TakeInt(string name) => TakeString(name) is { } text ? int.Parse(text, CultureInfo.InvariantCulture) : null;

    public int[]? TakeInts(string name)
        => TakeString(name) is { } text ? [.. text.Split(',').Select(v => int.Parse(v, CultureInfo.InvariantCulture))] : null;

    /// <summary>Takes every option whose name starts with <paramref name="prefix"/>, the prefix cut off.</summary>
    public List<(string Name, string Value)> TakePrefixed(string prefix)
    {
        var taken = _values.Where(v => v.Key.StartsWith(prefix, StringComparison.Ordinal)).Select(v => (v.Key[prefix.Length..], v.Value)).ToList();
        foreach (var (name, _) in taken)
            _values.Remove(prefix + name);
        return taken;
    }

    public void ThrowIfAnyLeft()
    {
        if (_values.Count > 0)
            throw new ArgumentException($"unknown option(s): {string.Join(", ", _values.Keys)}");
    }

    /// <summary>The set values as <c>--name value</c> pairs.</summary>
    public static IEnumerable<string> Pairs(IEnumerable<(string Name, long? Value)> values)
    {
        foreach (var (name, value) in values)
        {
            if (value is { } v)
            {
                yield return name;
                yield return v.ToString(CultureInfo.InvariantCulture);
            }
        }
    }

    public static string List(IEnumerable<int> values) => string.Join(',', values.Select(v => v.ToString(CultureInfo.InvariantCulture)));
}
