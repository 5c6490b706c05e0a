namespace Cairn.Tests.OptionsModel;

/// <summary>
/// Every option's name follows the pattern of docs/options.md ("Names"): it ends in its unit (a size in
/// <c>Bytes</c>, a count in the plural noun it counts, <c>Count</c> or a ring's <c>Capacity</c>, a fraction in
/// <c>Fraction</c>, a rate in its unit, as <c>BytesPerSecond</c>), a duration is named for what it bounds, and only a size in bytes ends in <c>Bytes</c>.
/// </summary>
public sealed class OptionNamingTests
{
    private static readonly string[] s_durationEndings = ["Timeout", "Delay", "Interval", "Threshold", "Duration", "Grace"];

    [Theory]
    [MemberData(nameof(OptionsTypes.Names), MemberType = typeof(OptionsTypes))]
    public void Each_option_is_named_by_the_pattern(string typeName)
    {
        var type = OptionsTypes.Named(typeName);
        var rows = OptionsTable.Read().GetValueOrDefault(typeName) ?? new Dictionary<string, OptionsTableRow>();
        var wrong = new List<string>();

        foreach (var option in OptionsTypes.Settable(type))
        {
            string name = option.Name;
            string? unit = rows.GetValueOrDefault(name)?.UnitTerm;
            bool endsInBytes = name.EndsWith("Bytes", StringComparison.Ordinal);
            if (OptionsTypes.IsDuration(option))
            {
                if (!s_durationEndings.Any(e => name.EndsWith(e, StringComparison.Ordinal)))
                    wrong.Add($"{typeName}.{name}: a duration ends in one of {string.Join(", ", s_durationEndings)}");
            }
            else if (OptionsTypes.IsNumber(option))
            {
                if (unit is null)
                    wrong.Add($"{typeName}.{name}: docs/options.md gives no unit to check the name against");
                else if (unit == "bytes" ? !endsInBytes : !EndsInCount(name, unit))
                    wrong.Add($"{typeName}.{name}: a number in {unit} ends in {Ending(unit)}");
            }
            if (endsInBytes && unit != "bytes")
                wrong.Add($"{typeName}.{name}: ends in Bytes but is not a size in bytes");
        }
        Assert.True(wrong.Count == 0, string.Join("\n", wrong));
    }

    private static bool EndsInCount(string name, string unit)
        => name.EndsWith(Ending(unit), StringComparison.Ordinal) || (unit != "fraction"
            && (name.EndsWith("Count", StringComparison.Ordinal) || name.EndsWith("Capacity", StringComparison.Ordinal)));

    // "operations" → "Operations": a count ends in the plural noun it counts; "bytes per second" → "BytesPerSecond": a
    // rate ends in its unit, each word capitalised.
    private static string Ending(string unit)
        => string.Concat(unit.Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(word => char.ToUpperInvariant(word[0]) + word[1..]));
}
