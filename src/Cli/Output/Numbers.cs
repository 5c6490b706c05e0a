using System.Globalization;

namespace Cairn.Cli.Output;

/// <summary>Numbers as the tool prints them for people: invariant culture, thousands separated, sizes in binary units.</summary>
internal static class Numbers
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;
    private static readonly string[] Units = ["B", "KiB", "MiB", "GiB", "TiB"];

    public static string Count(long value) => value.ToString("N0", Invariant);

    public static string Size(long bytes)
    {
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < Units.Length - 1)
        {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? $"{Count(bytes)} B" : value.ToString("F1", Invariant) + " " + Units[unit];
    }
}
