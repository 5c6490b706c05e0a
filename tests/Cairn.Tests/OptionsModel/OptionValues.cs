using System.Globalization;
using System.Reflection;

namespace Cairn.Tests.OptionsModel;

/// <summary>
/// The public settable options of <see cref="StorageOptions"/> and, for each, a value that differs from its default,
/// so a test can set every option at once and see each one come back. An option of a type this class does not
/// know fails the test that asks for it: whoever adds one decides how it is configured.
/// </summary>
internal static class OptionValues
{
    /// <summary>Options a host supplies as objects (from its container), never as configuration text.</summary>
    public static readonly string[] Services = [nameof(StorageOptions.LoggerFactory), nameof(StorageOptions.MeterFactory)];

    /// <summary>Every public property with a public setter (init included).</summary>
    public static IEnumerable<PropertyInfo> Settable() => OptionsTypes.Settable(typeof(StorageOptions));

    /// <summary>Every settable option that configuration text can carry.</summary>
    public static IEnumerable<PropertyInfo> Configurable() => Settable().Where(p => !Services.Contains(p.Name));

    /// <summary>A valid value for <paramref name="option"/> other than its default on <paramref name="defaults"/> (sizes and counts doubled: powers of two and 4 KiB multiples stay so).</summary>
    public static object Different(PropertyInfo option, StorageOptions defaults)
    {
        object? current = option.GetValue(defaults);
        var type = Nullable.GetUnderlyingType(option.PropertyType) ?? option.PropertyType;
        object value = type switch
        {
            _ when type == typeof(string) => $"{current}-other",
            _ when type == typeof(long) => current is long l && l != 0 ? l * 2 : 12_288L,
            _ when type == typeof(int) => current is int i && i != 0 ? i * 2 : 12_288,
            _ when type == typeof(double) => current is double d ? d / 2 + 0.125 : 0.375,
            _ when type == typeof(bool) => current is not true,
            _ when type == typeof(TimeSpan) => (current is TimeSpan t ? t : TimeSpan.Zero) + TimeSpan.FromMilliseconds(1_234.5),
            _ when type.IsEnum => Enum.GetValues(type).Cast<object>().First(v => !v.Equals(current)),
            _ => throw new NotSupportedException($"StorageOptions.{option.Name} is a {option.PropertyType}: say in OptionValues how configuration sets it"),
        };
        Assert.NotEqual(current, value);
        return value;
    }

    /// <summary>The value as configuration text (what the binder parses back).</summary>
    public static string Text(object value) => value switch
    {
        TimeSpan t => t.ToString("c", CultureInfo.InvariantCulture),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString()!,
    };
}
