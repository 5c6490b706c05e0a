namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// Cairn used as an application would: one named tree, a write transaction per batch, a read
/// transaction per request. Opened non-durable (as the key-value suite opens every store: LMDB with
/// MDB_NOSYNC), it commits lazily (<see cref="CommitMode.Lazy"/>: published at once, the journal written
/// within 100 ms or 8 MiB); durable, every commit is one durable journal write (O_DIRECT|O_DSYNC).
/// </summary>
/// <param name="readPath">How a reader reaches the tree: the suite's <c>cairn</c> is the fastest way there is.</param>
public sealed class CairnStore(CairnReadPath readPath) : IAppendingStore
{
    internal const string TreeName = "bench";

    private StorageEnvironment? _env;

    public void Open(string directory, bool durable)
    {
        if (_env is not null)
            throw new InvalidOperationException("already open");
        _env = StorageEnvironment.Open(new StorageOptions(directory) { CommitMode = durable ? CommitMode.Durable : CommitMode.Lazy });
        using var tx = _env.BeginWrite();
        tx.CreateTree(TreeName);
        tx.Commit();
    }

    public void FillBatches(KeySet keys, int batchSize) => Batches(keys, batchSize, append: false);

    private void Batches(KeySet keys, int batchSize, bool append)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var env = Env;
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var start = 0; start < keys.Count; start += batchSize)
        {
            var end = Math.Min(start + batchSize, keys.Count);
            using var tx = env.BeginWrite();
            var tree = tx.OpenTree(TreeName);
            for (var i = start; i < end; i++)
            {
                var key = keys[i];
                BenchValues.Compose(key, value);
                if (append)
                    tree.Append(key, value);
                else
                    tree.Put(key, value);
            }
            tx.Commit();
        }
    }

    public void AppendBatches(KeySet keys, int batchSize) => Batches(keys, batchSize, append: true);

    public IBenchReader CreateReader() => new CairnReader(Env, readPath);

    /// <summary>The bench tree's shape and the data file's size: pages per key say how full a fill left its pages.</summary>
    public string DescribeTree()
    {
        var info = Env.GetInfo();
        var tree = info.Trees.Single(t => t.Name == TreeName);
        double keys = Math.Max(1, tree.Entries);
        return $"leaves {tree.LeafPages:N0} ({tree.Entries / (double)Math.Max(1, tree.LeafPages):F1} keys/leaf), branches {tree.BranchPages:N0}, depth {tree.Depth}, " +
            $"{(tree.LeafPages + tree.BranchPages) * (double)info.PageSize / keys:F1} tree B/key, data file {info.DataFileBytes / keys:F1} B/key";
    }

    public void Dispose()
    {
        _env?.Dispose();
        _env = null;
    }

    private StorageEnvironment Env => _env ?? throw new InvalidOperationException("not open");
}

/// <summary>How <see cref="CairnStore"/>'s readers begin a transaction and open the tree.</summary>
public enum CairnReadPath
{
    /// <summary><c>BeginReadSnapshot</c> (a struct, no allocation) and a <see cref="TreeHandle"/> kept by the reader.</summary>
    SnapshotAndHandle,

    /// <summary><c>BeginReadSnapshot</c>, the tree opened by name.</summary>
    SnapshotByName,

    /// <summary><c>BeginRead</c> (a <see cref="ReadTransaction"/> object per transaction), the tree opened by name.</summary>
    ReadTransactionByName,
}

/// <summary>
/// A read transaction per request, as a request handler would use Cairn, begun and opened the way
/// <see cref="CairnReadPath"/> says. Reading many keys and scanning, once per transaction, always use a snapshot.
/// </summary>
internal sealed class CairnReader(StorageEnvironment env, CairnReadPath path) : IBenchReader
{
    private readonly TreeHandle _tree = env.GetTreeHandle(CairnStore.TreeName);

    public int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        if (path == CairnReadPath.ReadTransactionByName)
        {
            using var tx = env.BeginRead();
            return CopyOut(tx.OpenTree(CairnStore.TreeName), key, destination);
        }
        using var snapshot = env.BeginReadSnapshot();
        return CopyOut(Open(snapshot), key, destination);
    }

    private static int CopyOut(Tree tree, ReadOnlySpan<byte> key, Span<byte> destination)
    {
        if (!tree.TryGet(key, out var value))
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public int ReadManyInOneTransaction(KeySet keys, int start, int count)
    {
        using var snapshot = env.BeginReadSnapshot();
        var tree = Open(snapshot);
        var found = 0;
        var index = start;
        for (var i = 0; i < count; i++)
        {
            if (tree.TryGet(keys[index], out _))
                found++;
            if (++index == keys.Count)
                index = 0;
        }
        return found;
    }

    public ScanTotals ScanAll()
    {
        long items = 0, keyBytes = 0, valueBytes = 0;
        using var snapshot = env.BeginReadSnapshot();
        using var cursor = Open(snapshot).CreateCursor();
        for (var more = cursor.SeekFirst(); more; more = cursor.MoveNext())
        {
            items++;
            keyBytes += cursor.Key.Length;
            valueBytes += cursor.Value.Length;
        }
        return new ScanTotals(items, keyBytes, valueBytes);
    }

    private Tree Open(ReadSnapshot snapshot)
        => path == CairnReadPath.SnapshotAndHandle ? snapshot.OpenTree(_tree) : snapshot.OpenTree(CairnStore.TreeName);

    public void Dispose()
    {
    }
}
