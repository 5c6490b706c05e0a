namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// Cairn through its transaction merger: every put is one merged operation; a blocked-thread caller uses the
/// blocking <c>Write</c>, an asynchronous one awaits <c>WriteAsync</c>; either returns once the merged transaction
/// holding it is durable. Callers on many threads share the
/// merger's transactions and journal writes; that is the point of it. Default <see cref="StorageOptions"/>.
/// </summary>
/// <param name="blockOnTask">
/// Blocked-thread callers wait on <c>WriteAsync</c>'s task instead of calling <c>Write</c> (the way a caller had to
/// before <c>Write</c>: an event set by the task's continuation, which runs on the thread pool): the comparison
/// store <c>cairn-merger-ontask</c>.
/// </param>
public sealed class CairnMergerDurableStore(bool blockOnTask = false) : IDurableStore, IDurableLogCounter, IAsyncDurableStore
{
    private StorageEnvironment? _env;
    private long _lastTransactions;

    public void Open(string directory)
    {
        if (_env is not null)
            throw new InvalidOperationException("already open");
        _env = StorageEnvironment.Open(new StorageOptions(directory));
        using var tx = _env.BeginWrite();
        tx.CreateTree(CairnDurableStore.TreeName);
        tx.Commit();
        _lastTransactions = _env.MergerStatistics.Snapshot().Transactions;
    }

    public IDurableWriter CreateWriter() => blockOnTask ? new TaskWaitingWriter(Env) : new Writer(Env);

    public IAsyncDurableWriter CreateAsyncWriter() => new AsyncWriter(Env);

    public string Describe() =>
        $"cairn-merger: default StorageOptions, one merged operation per put into tree '{CairnDurableStore.TreeName}' " +
        $"(Write on blocked threads, WriteAsync for async callers), returning once durable; {Env.DirectoryPath}";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var tx = Env.BeginRead();
        if (!tx.OpenTree(CairnDurableStore.TreeName).TryGet(key, out var value))
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public string LogWriteName => "journal write";

    public long LogWritesSinceLastRead()
    {
        long now = Env.MergerStatistics.Snapshot().Transactions; // one journal write per merged transaction
        long since = now - _lastTransactions;
        _lastTransactions = now;
        return since;
    }

    public void Dispose()
    {
        _env?.Dispose();
        _env = null;
    }

    private StorageEnvironment Env => _env ?? throw new InvalidOperationException("not open");

    /// <summary>An asynchronous caller: the key and value go into its own buffers, and the caller awaits the task.</summary>
    private sealed class AsyncWriter(StorageEnvironment env) : IAsyncDurableWriter
    {
        private readonly byte[] _key = new byte[64];
        private readonly byte[] _value = new byte[256];
        private int _keyLength;
        private int _valueLength;

        public ValueTask PutAsync(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            key.CopyTo(_key);
            value.CopyTo(_value);
            _keyLength = key.Length;
            _valueLength = value.Length;
            return env.WriteAsync(this, static (tx, w) =>
                tx.OpenTree(CairnDurableStore.TreeName).Put(w._key.AsSpan(0, w._keyLength), w._value.AsSpan(0, w._valueLength)));
        }
    }

    /// <summary>
    /// One caller on a thread of its own, through the blocking <c>Write</c>: the key and value are copied into this
    /// writer's own buffers (reused: one put at a time per writer), and the thread waits on its own event inside
    /// Cairn (no Task, no allocation per put).
    /// </summary>
    private sealed class Writer(StorageEnvironment env) : IDurableWriter
    {
        private readonly TreeHandle _tree = env.GetTreeHandle(CairnDurableStore.TreeName);
        private byte[] _key = new byte[64];
        private byte[] _value = new byte[256];
        private int _keyLength;
        private int _valueLength;

        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            if (key.Length > _key.Length)
                _key = new byte[key.Length];
            if (value.Length > _value.Length)
                _value = new byte[value.Length];
            key.CopyTo(_key);
            value.CopyTo(_value);
            _keyLength = key.Length;
            _valueLength = value.Length;
            env.Write(this, static (tx, w) => tx.OpenTree(w._tree).Put(w._key.AsSpan(0, w._keyLength), w._value.AsSpan(0, w._valueLength)));
        }

        public void Dispose()
        {
        }
    }

    /// <summary>
    /// A blocked-thread caller as one had to write it before <c>Write</c>: <c>WriteAsync</c>, then an event set by the
    /// task's continuation (no Task, no allocation per put; the continuation runs on the thread pool).
    /// </summary>
    private sealed class TaskWaitingWriter : IDurableWriter
    {
        private readonly StorageEnvironment _env;
        private readonly TreeHandle _tree;
        private readonly ManualResetEventSlim _done = new(false);
        private readonly Action _signal;
        private readonly byte[] _key = new byte[64];
        private readonly byte[] _value = new byte[256];
        private int _keyLength;
        private int _valueLength;

        public TaskWaitingWriter(StorageEnvironment env)
        {
            _env = env;
            _tree = env.GetTreeHandle(CairnDurableStore.TreeName);
            _signal = _done.Set;
        }

        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            key.CopyTo(_key);
            value.CopyTo(_value);
            _keyLength = key.Length;
            _valueLength = value.Length;
            var task = _env.WriteAsync(this, static (tx, w) => tx.OpenTree(w._tree).Put(w._key.AsSpan(0, w._keyLength), w._value.AsSpan(0, w._valueLength)));
            if (!task.IsCompleted)
            {
                _done.Reset();
                task.GetAwaiter().UnsafeOnCompleted(_signal);
                _done.Wait();
            }
            task.GetAwaiter().GetResult();
        }

        public void Dispose() => _done.Dispose();
    }
}
