namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// Cairn as an application commits one change at a time: a write transaction, one put into a
/// named tree, commit. Default <see cref="StorageOptions"/>. Once the write-ahead journal is in
/// (durability issue) Commit returns when the transaction's journal entry is durable, one
/// O_DIRECT|O_DSYNC write; before that Commit writes nothing and these figures mean nothing.
/// </summary>
/// <param name="useTreeHandle">Open the tree through a <see cref="TreeHandle"/> (kept by the writer) instead of by name.</param>
public sealed class CairnDurableStore(bool useTreeHandle = false) : IDurableStore, IDurableLogCounter
{
    // Enough I/O records for a benchmark round of every commit its own journal write (8,192 at most) plus flushes.
    private const int IoRecords = 16_384;

    internal const string TreeName = "kv";

    private StorageEnvironment? _env;
    private long _lastCountedSequence = -1;

    public void Open(string directory)
    {
        if (_env is not null)
            throw new InvalidOperationException("already open");
        _env = StorageEnvironment.Open(new StorageOptions(directory) { IoStatsCapacity = IoRecords });
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

    public string LogWriteName => "journal write";

    /// <summary>Journal writes recorded in <see cref="StorageEnvironment.IoStats"/> since the previous call: with group commit, several commits share one.</summary>
    public long LogWritesSinceLastRead()
    {
        var operations = Env.IoStats.Snapshot();
        if (operations.Length > 0 && _lastCountedSequence >= 0 && operations[0].Sequence > _lastCountedSequence + 1)
            throw new InvalidOperationException($"more than {IoRecords} I/O operations between two reads: journal writes would go uncounted");
        long writes = 0;
        foreach (var operation in operations)
        {
            if (operation.Sequence <= _lastCountedSequence)
                continue;
            _lastCountedSequence = operation.Sequence;
            if (operation.Kind == Cairn.Diagnostics.IoOperationKind.JournalWrite)
                writes++;
        }
        return writes;
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
