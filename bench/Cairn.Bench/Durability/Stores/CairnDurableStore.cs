namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// Cairn as an application commits one change at a time: a write transaction, one put into a
/// named tree, commit. Default <see cref="StorageOptions"/>. Once the write-ahead journal is in
/// (durability issue) Commit returns when the transaction's journal entry is durable, one
/// O_DIRECT|O_DSYNC write; before that Commit writes nothing and these figures mean nothing.
/// </summary>
/// <param name="useTreeHandle">Open the tree through a <see cref="TreeHandle"/> (kept by the writer) instead of by name.</param>
public sealed class CairnDurableStore(bool useTreeHandle = false) : IDurableStore
{
    internal const string TreeName = "kv";

    private StorageEnvironment? _env;

    public void Open(string directory)
    {
        if (_env is not null)
            throw new InvalidOperationException("already open");
        _env = StorageEnvironment.Open(new StorageOptions(directory));
        using var tx = _env.BeginWrite();
        tx.CreateTree(TreeName);
        tx.Commit();
    }

    // BeginWrite waits for the current write transaction, so several callers take turns; the merger
    // issue will batch their commits into shared journal writes.
    public IDurableWriter CreateWriter() => useTreeHandle ? new HandleWriter(Env) : new Writer(Env);

    public string Describe() =>
        $"cairn: default StorageOptions, one write transaction per put into tree '{TreeName}'" +
        $"{(useTreeHandle ? " opened through a TreeHandle" : " opened by name")}, {Env.DirectoryPath}";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var tx = Env.BeginRead();
        if (!tx.OpenTree(TreeName).TryGet(key, out var value))
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public void Dispose()
    {
        _env?.Dispose();
        _env = null;
    }

    private StorageEnvironment Env => _env ?? throw new InvalidOperationException("not open");

    private sealed class Writer(StorageEnvironment env) : IDurableWriter
    {
        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            using var tx = env.BeginWrite();
            tx.OpenTree(TreeName).Put(key, value);
            tx.Commit();
        }

        public void Dispose()
        {
        }
    }

    private sealed class HandleWriter(StorageEnvironment env) : IDurableWriter
    {
        private readonly TreeHandle _tree = env.GetTreeHandle(TreeName);

        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            using var tx = env.BeginWrite();
            tx.OpenTree(_tree).Put(key, value);
            tx.Commit();
        }

        public void Dispose()
        {
        }
    }
}
