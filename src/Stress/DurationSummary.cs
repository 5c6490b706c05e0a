using System.Globalization;

namespace Cairn.Stress;

/// <summary>Percentiles of a set of durations (nearest rank).</summary>
public sealed record DurationSummary(int Count, TimeSpan P50, TimeSpan P99, TimeSpan Max)
{
    public static DurationSummary Empty { get; } = new(0, TimeSpan.Zero, TimeSpan.Zero, TimeSpan.Zero);

    public static DurationSummary Of(IEnumerable<TimeSpan> durations)
    {
        var sorted = durations.Order().ToArray();
        return sorted.Length == 0 ? Empty : new DurationSummary(sorted.Length, Rank(sorted, 0.50), Rank(sorted, 0.99), sorted[^1]);
    }

    public string Format() => Count == 0
        ? "none"
        : string.Create(CultureInfo.InvariantCulture, $"p50 {Ms(P50)} · p99 {Ms(P99)} · max {Ms(Max)} (of {Count})");

    private static TimeSpan Rank(TimeSpan[] sorted, double fraction) => sorted[Math.Clamp((int)Math.Ceiling(fraction * sorted.Length) - 1, 0, sorted.Length - 1)];

    private static string Ms(TimeSpan t) => string.Create(CultureInfo.InvariantCulture, $"{t.TotalMilliseconds:F0} ms");
}
