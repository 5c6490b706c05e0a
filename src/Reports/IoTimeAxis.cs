using System.Globalization;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The horizontal scale the HTML report's two charts share: from the first operation's start to the last one's
/// end, mapped onto a width in pixels, with round tick marks labelled as time since the start.
/// </summary>
internal sealed class IoTimeAxis
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;
    private readonly double _left;
    private readonly double _width;

    private IoTimeAxis(DateTime start, TimeSpan span, double left, double width)
    {
        Start = start;
        Span = span;
        _left = left;
        _width = width;
    }

    public DateTime Start { get; }

    public TimeSpan Span { get; }

    /// <summary>The axis for <paramref name="operations"/>; a millisecond wide when they span no time at all.</summary>
    public static IoTimeAxis For(ReadOnlySpan<IoOperation> operations, double left, double width)
    {
        if (operations.IsEmpty)
            return new IoTimeAxis(DateTime.UnixEpoch, TimeSpan.FromMilliseconds(1), left, width);
        var start = DateTime.MaxValue;
        var end = DateTime.MinValue;
        foreach (ref readonly var operation in operations)
        {
            if (operation.StartUtc < start)
                start = operation.StartUtc;
            if (operation.StartUtc + operation.Duration > end)
                end = operation.StartUtc + operation.Duration;
        }
        var span = end - start;
        return new IoTimeAxis(start, span > TimeSpan.Zero ? span : TimeSpan.FromMilliseconds(1), left, width);
    }

    public double X(DateTime time) => _left + (time - Start).Ticks / (double)Span.Ticks * _width;

    public double Length(TimeSpan duration) => duration.Ticks / (double)Span.Ticks * _width;

    /// <summary>About <paramref name="count"/> ticks at 1, 2 or 5 times a power of ten, with their labels.</summary>
    public IEnumerable<(double X, string Label)> Ticks(int count = 8)
    {
        long step = NiceStep(Span.Ticks / (double)count);
        for (long offset = 0; offset <= Span.Ticks; offset += step)
            yield return (_left + offset / (double)Span.Ticks * _width, Label(offset, step));
    }

    /// <summary>A duration as people read it: µs below a millisecond, ms below a second, then seconds.</summary>
    public static string Duration(TimeSpan duration)
        => duration.Ticks < TimeSpan.TicksPerMillisecond ? (duration.Ticks / 10.0).ToString("0.#", Invariant) + " µs"
            : duration.Ticks < TimeSpan.TicksPerSecond ? duration.TotalMilliseconds.ToString("0.##", Invariant) + " ms"
            : duration.TotalSeconds.ToString("0.###", Invariant) + " s";

    private static long NiceStep(double rawTicks)
    {
        double magnitude = Math.Pow(10, Math.Floor(Math.Log10(Math.Max(rawTicks, 1))));
        foreach (double multiple in new[] { 1.0, 2.0, 5.0, 10.0 })
        {
            if (multiple * magnitude >= rawTicks)
                return Math.Max(1, (long)(multiple * magnitude));
        }
        return (long)(10 * magnitude);
    }

    // As many decimals as the step needs, in the unit the step is counted in.
    private static string Label(long offsetTicks, long stepTicks)
    {
        (double unit, string suffix) = stepTicks >= TimeSpan.TicksPerSecond ? (TimeSpan.TicksPerSecond, " s")
            : stepTicks >= TimeSpan.TicksPerMillisecond ? (TimeSpan.TicksPerMillisecond, " ms")
            : (TimeSpan.TicksPerMicrosecond, " µs");
        int decimals = Math.Max(0, -(int)Math.Floor(Math.Log10(stepTicks / unit) + 1e-9));
        return (offsetTicks / unit).ToString("F" + decimals, Invariant) + suffix;
    }
}
