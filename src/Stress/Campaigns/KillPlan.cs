using System.Globalization;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

internal enum KillMoment
{
    /// <summary><see cref="KillPlan.Delay"/> after the child said <c>opening</c>: a kill aimed at opening and recovery.</summary>
    AfterOpening,
    /// <summary><see cref="KillPlan.Delay"/> after every environment said <c>start</c>: a kill among the first commits (a young process is still compiling them).</summary>
    AfterStart,
    /// <summary><see cref="KillPlan.Delay"/> after the first acknowledgement: a kill among commits in full flow.</summary>
    AfterFirstAck,
    /// <summary>The child kills itself at <see cref="KillPlan.Point"/>; if it has not got there <see cref="KillPlan.Delay"/> after its first acknowledgement, the parent kills it.</summary>
    AtPoint,
}

/// <summary>When one cycle's child dies. The spread of delays is what makes kills land in every phase.</summary>
internal sealed record KillPlan(KillMoment Moment, TimeSpan Delay, KillPoint? Point = null, int Occurrence = 0)
{
    /// <summary>
    /// A kill point one cycle in five when <paramref name="points"/> offers any (the third occurrence at most, so
    /// most reach it), else a moment: 5% during opening, 10% within 50 ms of start (among the first commits), and
    /// the rest timed from the first acknowledgement, when commits flow (a fresh process takes a few hundred
    /// milliseconds to get there on a loaded machine): 60% within 150 ms, 20% within 150–600 ms, 5% within 0.6–2 s.
    /// </summary>
    public static KillPlan Choose(Random random, IReadOnlyList<KillPoint> points)
    {
        if (points.Count > 0 && random.Next(5) == 0)
            return new KillPlan(KillMoment.AtPoint, Milliseconds(random.Next(100, 1000)), points[random.Next(points.Count)], random.Next(1, 4));
        return random.Next(100) switch
        {
            < 5 => new KillPlan(KillMoment.AfterOpening, Milliseconds(random.Next(0, 30))),
            < 15 => new KillPlan(KillMoment.AfterStart, Milliseconds(random.Next(0, 50))),
            < 75 => new KillPlan(KillMoment.AfterFirstAck, Milliseconds(random.Next(0, 150))),
            < 95 => new KillPlan(KillMoment.AfterFirstAck, Milliseconds(random.Next(150, 600))),
            _ => new KillPlan(KillMoment.AfterFirstAck, Milliseconds(random.Next(600, 2000))),
        };
    }

    public override string ToString()
    {
        string ms = Delay.TotalMilliseconds.ToString("F0", CultureInfo.InvariantCulture);
        return Moment switch
        {
            KillMoment.AfterOpening => $"kill {ms} ms after 'opening'",
            KillMoment.AfterStart => $"kill {ms} ms after 'start'",
            KillMoment.AfterFirstAck => $"kill {ms} ms after the first acknowledgement",
            _ => $"kill at {Point!.Name} #{Occurrence} (or {ms} ms after the first acknowledgement)",
        };
    }

    private static TimeSpan Milliseconds(int ms) => TimeSpan.FromMilliseconds(ms);
}
