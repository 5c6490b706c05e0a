using System.Collections.Concurrent;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// The node groups started and not yet killed, SIGKILLed when the test host exits: the safety net under
/// <see cref="NodeProcess"/>'s disposal, for a test that forgot to dispose or a host stopped between tests.
/// A host killed outright cannot run this; nodes can watch their standard input for its end of file.
/// </summary>
internal static class LiveNodeRuns
{
    private static readonly ConcurrentDictionary<int, byte> groups = new();

    static LiveNodeRuns() => AppDomain.CurrentDomain.ProcessExit += (_, _) => KillAll();

    public static void Add(int group) => groups.TryAdd(group, 0);

    public static void Remove(int group) => groups.TryRemove(group, out _);

    private static void KillAll()
    {
        foreach (var group in groups.Keys)
            PosixSignals.SendToGroup(group, PosixSignals.Kill);
    }
}
