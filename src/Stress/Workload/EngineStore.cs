namespace Cairn.Stress.Workload;

/// <summary>A write transaction seen as an <see cref="IStressStore"/>.</summary>
internal readonly struct EngineStore(WriteTransaction tx) : IStressStore
{
    public bool TreeExists(string tree) => tx.TryOpenTree(tree, out _);

    public void CreateTree(string tree) => tx.CreateTree(tree);

    public bool DeleteTree(string tree) => tx.DeleteTree(tree);

    public byte[]? Get(string tree, byte[] key) => tx.OpenTree(tree).Get(key);

    public bool Contains(string tree, byte[] key) => tx.OpenTree(tree).TryGet(key, out ReadOnlySpan<byte> _);

    public void Put(string tree, byte[] key, byte[] value) => tx.OpenTree(tree).Put(key, value);

    public bool Delete(string tree, byte[] key) => tx.OpenTree(tree).Delete(key);
}
