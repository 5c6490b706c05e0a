namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// Cairn used as an application would: one named tree, a write transaction per batch, a read
/// transaction per request. Opened non-durable (as the key-value suite opens every store: LMDB with
/// MDB_NOSYNC), it commits lazily (<see cref="CommitMode.Lazy"/>: published at once, the journal written
/// within 100 ms or 8 MiB); durable, every commit is one durable journal write (O_DIRECT|O_DSYNC).
/// </summary>
public sealed class CairnStore : IBenchStore
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

    public void FillBatches(KeySet keys, int batchSize)
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
                tree.Put(key, value);
            }
            tx.Commit();
        }
    }

    public IBenchReader CreateReader() => new CairnReader(Env);

    public void Dispose()
    {
        _env?.Dispose();
        _env = null;
    }

    private StorageEnvironment Env => _env ?? throw new InvalidOperationException("not open");
}

/// <summary>A read transaction per request, as a request handler would use Cairn.</summary>
internal sealed class CairnReader(StorageEnvironment env) : IBenchReader
{
    public int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var tx = env.BeginRead();
        if (!tx.OpenTree(CairnStore.TreeName).TryGet(key, out var value))
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public int ReadManyInOneTransaction(KeySet keys, int start, int count)
    {
        using var tx = env.BeginRead();
        var tree = tx.OpenTree(CairnStore.TreeName);
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
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree(CairnStore.TreeName).CreateCursor();
        for (var more = cursor.SeekFirst(); more; more = cursor.MoveNext())
        {
            items++;
            keyBytes += cursor.Key.Length;
            valueBytes += cursor.Value.Length;
        }
        return new ScanTotals(items, keyBytes, valueBytes);
    }

    public void Dispose()
    {
    }
}
