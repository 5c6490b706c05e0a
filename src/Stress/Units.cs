using System.Globalization;

namespace Cairn.Stress;

/// <summary>Sizes and times as the reports and progress lines print them.</summary>
internal static class Units
{
    public static string MiB(long bytes) => string.Create(CultureInfo.InvariantCulture, $"{bytes / (1024.0 * 1024):F1} MiB");

    public static string Seconds(TimeSpan time) => string.Create(CultureInfo.InvariantCulture, $"{time.TotalSeconds,5:F0} s");
}
