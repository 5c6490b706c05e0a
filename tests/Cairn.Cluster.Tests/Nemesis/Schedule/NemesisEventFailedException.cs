namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>The nemesis could not apply an event: which one, to which node, and the log so far.</summary>
public sealed class NemesisEventFailedException(NemesisEvent failed, string applied, string logTail, Exception inner)
    : Exception($"Nemesis event {failed} ({applied}) failed: {inner.Message}\n{logTail}", inner)
{
    public NemesisEvent Event { get; } = failed;
}
