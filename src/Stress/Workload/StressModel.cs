namespace Cairn.Stress.Workload;

/// <summary>
/// The expected state: what a database holds after workload transactions 1..<see cref="Position"/>, one sorted
/// dictionary per tree, advanced forward only, so a long campaign pays for each transaction once.
/// </summary>
internal sealed class StressModel(StressWorkload workload) : IStressStore
{
    private readonly SortedDictionary<string, SortedDictionary<byte[], byte[]>> _trees = new(StringComparer.Ordinal);

    public StressWorkload Workload => workload;

    /// <summary>The last workload transaction applied; 0 for the empty database.</summary>
    public long Position { get; private set; }

    /// <summary>Trees by name in ordinal order, which for the workload's ASCII names is the engine's order.</summary>
    public IReadOnlyDictionary<string, SortedDictionary<byte[], byte[]>> Trees => _trees;

    public void AdvanceTo(long transaction)
    {
        if (transaction < Position)
            throw new InvalidOperationException($"the model is at transaction {Position} and cannot go back to {transaction}");
        while (Position < transaction)
            TransactionApplier.Apply(this, workload, ++Position);
    }

    bool IStressStore.TreeExists(string tree) => _trees.ContainsKey(tree);

    void IStressStore.CreateTree(string tree) => _trees.Add(tree, new SortedDictionary<byte[], byte[]>(UnsignedBytes.Comparer));

    bool IStressStore.DeleteTree(string tree) => _trees.Remove(tree);

    byte[]? IStressStore.Get(string tree, byte[] key) => Tree(tree).GetValueOrDefault(key);

    bool IStressStore.Contains(string tree, byte[] key) => Tree(tree).ContainsKey(key);

    void IStressStore.Put(string tree, byte[] key, byte[] value) => Tree(tree)[key] = value;

    bool IStressStore.Delete(string tree, byte[] key) => Tree(tree).Remove(key);

    private SortedDictionary<byte[], byte[]> Tree(string name)
        => _trees.TryGetValue(name, out var tree)
            ? tree
            : throw new InvalidOperationException($"transaction {Position} writes to tree '{name}', which does not exist");
}
