using System.Globalization;

namespace Cairn.Stress;

/// <summary>
/// Whether a soak run's memory grew without bound. The samples are cut in thirds: the first is warm-up (caches,
/// pools, the journal and scratch memory reaching their working size) and is ignored; the run fails if the peak
/// of the last third exceeds <c>ratio × peak of the middle third + slack</c>. Peaks, not means, so a slow moment
/// (a loaded machine stalls the flusher, scratch piles up for a second) counts in whichever third it falls, and
/// any wobble within a band [low, high] with <c>high ≤ ratio × low + slack</c> passes wherever its spikes land:
/// the criterion cannot fail by luck. What it catches: growth that goes on through the last third. A steady leak
/// of L bytes over the run, on a baseline B, fails once <c>L × (1 − 2·ratio/3) > (ratio − 1) × B + slack</c>;
/// with the defaults (ratio 1.2, slack 64 MiB plus the flush thresholds), once it exceeds B + 5 × slack (about
/// 0.5 GiB for a 200 MiB process), so a longer run catches a slower leak.
/// </summary>
/// <param name="Judged">False with fewer than <see cref="MinimumSamples"/> samples: too short a run to tell growth from warm-up (it passes).</param>
/// <param name="Grew">The last third's peak is over <paramref name="Allowed"/>.</param>
public sealed record GrowthVerdict(bool Judged, bool Grew, long MiddlePeak, long LastPeak, long Allowed)
{
    public const int MinimumSamples = 6;

    public static GrowthVerdict Judge(IReadOnlyList<long> samples, double ratio, long slackBytes)
    {
        if (samples.Count < MinimumSamples)
            return new GrowthVerdict(false, false, 0, samples.Count > 0 ? samples.Max() : 0, 0);
        int third = samples.Count / 3;
        long middle = samples.Skip(third).Take(third).Max();
        long last = samples.Skip(2 * third).Max();
        long allowed = (long)Math.Min(long.MaxValue, middle * ratio + slackBytes);
        return new GrowthVerdict(true, last > allowed, middle, last, allowed);
    }

    public string Format() => !Judged
        ? string.Create(CultureInfo.InvariantCulture, $"not judged (fewer than {MinimumSamples} samples), peak {Units.MiB(LastPeak)}")
        : string.Create(CultureInfo.InvariantCulture,
            $"{(Grew ? "GREW" : "bounded")}: peak {Units.MiB(LastPeak)} in the last third, {Units.MiB(MiddlePeak)} in the middle third, {Units.MiB(Allowed)} allowed");
}
