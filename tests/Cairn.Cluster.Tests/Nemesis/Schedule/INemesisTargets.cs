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

    /// <summary>The cluster's membership as the nemesis changes it, or null (the default) when it is fixed.</summary>
    IMembershipNemesis? Membership => null;
}

/// <summary>
/// Membership changes as the nemesis makes them, each through whichever node leads, while clients write. A node
/// index is a place in the cluster: a removed member leaves its place empty until a fresh node (a new id, a new
/// folder) is added there.
/// </summary>
public interface IMembershipNemesis
{
    /// <summary>Removes the running member at <paramref name="node"/> (the leader itself, if it leads), then stops its process.</summary>
    Task RemoveAsync(int node);

    /// <summary>Starts a fresh node in the empty place <paramref name="node"/> and adds it; returns once it is a member.</summary>
    Task AddFreshAsync(int node);

    /// <summary>The member at <paramref name="node"/> is dead (killed): removes it and adds a fresh node in its place.</summary>
    Task ReplaceAsync(int node);
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
