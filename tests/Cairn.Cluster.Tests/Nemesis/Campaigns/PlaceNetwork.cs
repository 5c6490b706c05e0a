using Cairn.Cluster.Tests.Nemesis.Schedule;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// The network of a <see cref="ProcessCluster"/> by place, as the nemesis names nodes: each place stands for the
/// address of the member it holds now. A partition puts every other address (fresh nodes not added yet, removed
/// ones) with the last group, the majority's side.
/// </summary>
internal sealed class PlaceNetwork(NemesisNetwork network, int[] placeAddress) : INetworkNemesis
{
    public void Partition(IReadOnlyList<IReadOnlyList<int>> groups, LinkBehaviour? across = null)
    {
        var mapped = groups.Select(group => group.Select(Address).ToList()).ToList();
        mapped[^1].AddRange(Enumerable.Range(0, network.NodeCount).Except(mapped.SelectMany(g => g)));
        network.Partition(mapped, across);
    }

    public void OneWay(int from, int to) => network.OneWay(Address(from), Address(to));

    public void SetBoth(int a, int b, LinkBehaviour behaviour) => network.SetBoth(Address(a), Address(b), behaviour);

    public void Heal() => network.Heal();

    private int Address(int place) => placeAddress[place] is var address and >= 0
        ? address : throw new InvalidOperationException($"Place {place} is empty: no link fault can name it.");
}
