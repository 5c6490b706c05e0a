namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>Where a node's process is, as the nemesis left it or as it left itself.</summary>
public enum NodeProcessState
{
    Running,

    /// <summary>SIGSTOPped: it exists, holds its files and sockets, and does nothing.</summary>
    Paused,

    /// <summary>SIGKILLed by the nemesis and reaped; <see cref="NodeProcess.RestartAsync"/> brings it back.</summary>
    Killed,

    /// <summary>Exited by itself: a failure the campaign must report (<see cref="NodeProcess.ThrowIfExited"/>).</summary>
    Exited,
}
