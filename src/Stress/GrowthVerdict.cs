using System.Globalization;

namespace Cairn.Stress;

/// <summary>
/// Whether a soak run's memory grew without bound. The samples are cut in thirds: the first is warm-up (caches,
/// pools, the journal and scratch memory reaching their working size) and is ignored; the run fails if the peak
/// of the last third exceeds <c>ratio × peak of the middle third + slack</c>. Peaks, not means, so one slow
/// second (a loaded machine stalls the flusher, scratch piles up for a moment) shows in both thirds alike; a
/// leak shows as a last third above the middle by at least what it leaked in a third of the run.
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
