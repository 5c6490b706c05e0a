namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// What a nemesis schedule acts on: the cluster under test implements it (its nodes' processes, the network between
/// them, their disks, and who leads). Node indices are the cluster's own, 0 to <see cref="NodeCount"/> - 1.
/// </summary>
public interface INemesisTargets
{
    int NodeCount { get; }

    /// <summary>The node that leads now, or null when no node is known to lead (an election, a partition).</summary>
    Task<int?> FindLeaderAsync();

    IProcessNemesis Process(int node);

    INetworkNemesis Network { get; }

    /// <summary>Node <paramref name="node"/>'s disk, or null when it has none the nemesis can fill.</summary>
    IDiskNemesis? Disk(int node);
}

/// <summary>A node's process as the nemesis controls it (<see cref="Processes.NodeProcess"/>).</summary>
public interface IProcessNemesis
{
    Task KillAsync();

    Task RestartAsync();

    Task PauseAsync();

    Task ResumeAsync();
}

/// <summary>The links between nodes as the nemesis controls them (<see cref="NemesisNetwork"/>).</summary>
public interface INetworkNemesis
{
    void Partition(IReadOnlyList<IReadOnlyList<int>> groups, LinkBehaviour? across = null);

    void OneWay(int from, int to);

    void SetBoth(int a, int b, LinkBehaviour behaviour);

    void Heal();
}

/// <summary>A node's disk as the nemesis controls it (<see cref="Disks.NodeDisk"/>).</summary>
public interface IDiskNemesis
{
    void Fill();

    void Free();
}
