using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

/// <summary>One cycle: the child's settings, how it dies (null: it is stopped cleanly), and how the parent checks afterwards (null: the next child recovers).</summary>
internal sealed record CyclePlan(int Cycle, ChildSettings Child, KillPlan? Kill, CheckMode? Check)
{
    public override string ToString()
    {
        string mix = string.Join(" ", Enumerable.Range(0, Child.Environments).Select(k =>
            (Child.Branches > 0 ? EnvironmentLayout.Name(k) + " " : "") + $"{Child.Writers[k]}+{Child.Callers[k]}"));
        return $"cycle {Cycle}: {Kill?.ToString() ?? "stop cleanly"}, {Child.Storage.Label}" +
               (Child.Branches > 0 ? $", {Child.Storage.Engine.JournalGroupMaxInFlightWrites} group writes in flight" : "") +
               (Child.Storage.Engine.JournalCompressionThresholdBytes is { } threshold ? $", journal entries compressed from {threshold} bytes" : "") +
               $", BeginWrite writers + merger callers: {mix}, {Child.Readers} reader(s) each, " +
               (Check is { } check ? $"checked {check}" : "checked by the next child");
    }
}
