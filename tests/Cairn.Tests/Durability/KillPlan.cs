using System.Globalization;

namespace Cairn.Tests.Durability;

/// <summary>
/// When one crash cycle kills its writer, and whether the parent checks the database afterwards or lets
/// the next writer recover it. The spread of delays is what makes kills land in every phase: opening and
/// recovery, the first commits, commits with flushes, syncs and journal switches under way.
/// </summary>
public sealed record KillPlan(bool DuringOpening, TimeSpan Delay, bool CheckAfterwards)
{
    public static KillPlan Choose(Random random, bool lastCycle)
    {
        // Most cycles are checked by the parent; the others leave recovery to the next writer, so
        // recovery itself runs in a process that can be killed.
        bool check = lastCycle || random.Next(4) != 0;
        int roll = random.Next(100);
        return roll switch
        {
            < 5 => new KillPlan(true, Milliseconds(random.Next(0, 30)), check),
            < 15 => new KillPlan(false, TimeSpan.Zero, check),
            < 75 => new KillPlan(false, Milliseconds(random.Next(0, 150)), check),
            < 95 => new KillPlan(false, Milliseconds(random.Next(150, 600)), check),
            _ => new KillPlan(false, Milliseconds(random.Next(600, 2000)), check),
        };
    }

    public override string ToString()
        => $"kill {Delay.TotalMilliseconds.ToString(CultureInfo.InvariantCulture)} ms after {(DuringOpening ? "'opening'" : "'start'")}" +
           (CheckAfterwards ? ", then check" : ", then leave recovery to the next writer");

    private static TimeSpan Milliseconds(int ms) => TimeSpan.FromMilliseconds(ms);
}
