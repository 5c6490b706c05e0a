using Cairn.Trees;

namespace Cairn.Transactions;

/// <summary>
/// The reusable part of a transaction: page access and the trees it opened. Read transactions rent
/// one from <see cref="ReadContextPool"/>, so a request that begins a read, opens a tree and reads a
/// key allocates nothing but the small transaction handle; while no commit has happened since the
/// context was last used, its opened trees are still valid and opening one is a dictionary hit.
/// </summary>
internal sealed class ReadContext(LowLevelTransaction low, int readerSlot, ReadContextPool? pool = null)
{
    /// <summary>The pool (so, the environment) this context belongs to; null for the writer's.</summary>
    public ReadContextPool? Pool { get; } = pool;

    public LowLevelTransaction Low { get; } = low;

    /// <summary>The reader-table slot this context keeps for its whole life (-1 for the writer's).</summary>
    public int ReaderSlot { get; } = readerSlot;

    /// <summary>The last tree opened by name, so the usual one-tree request skips the dictionary.</summary>
    public string? LastTreeName { get; set; }

    public BTree? LastTree { get; set; }

    public Dictionary<string, BTree> Trees { get; } = new(StringComparer.Ordinal);

    public BTree? Root { get; set; }

    /// <summary>Points the context at <paramref name="state"/>, forgetting trees opened on another state.</summary>
    public void Bind(EnvironmentState state)
    {
        if (ReferenceEquals(Low.State, state))
            return;
        Low.Rebind(state);
        Trees.Clear();
        Root = null;
        LastTreeName = null;
        LastTree = null;
    }
}

/// <summary>
/// Read contexts waiting for their next transaction. Each thread keeps one in a thread-static field
/// (no atomic operation at all for the common begin-read, end-read on one thread); the rest sit in
/// a lock-free slot array where rent and return are one exchange each. Each thread probes the array
/// from its own cache line, so readers on different cores do not bounce one line between them.
/// </summary>
internal sealed class ReadContextPool
{
    private const int SlotsPerCacheLine = 8;
    private readonly ReadContext?[] _slots = new ReadContext?[512];
    private volatile bool _closed;

    // One per thread, whichever environment it belongs to; a context of a closed pool is dropped.
    [ThreadStatic] private static ReadContext? t_context;

    public ReadContext? TryRent()
    {
        var local = t_context;
        if (local is not null)
        {
            if (ReferenceEquals(local.Pool, this))
            {
                t_context = null;
                return local;
            }
            if (local.Pool is { _closed: true })
                t_context = null;
        }
        return TryRentShared();
    }

    private ReadContext? TryRentShared()
    {
        int start = StartFor(Environment.CurrentManagedThreadId);
        for (int n = 0; n < _slots.Length; n++)
        {
            ref ReadContext? slot = ref _slots[(start + n) & (_slots.Length - 1)];
            if (Volatile.Read(ref slot) is not null && Interlocked.Exchange(ref slot, null) is { } context)
                return context;
        }
        return null;
    }

    /// <summary>Keeps the context for reuse; false when the pool is full and the caller must let it go.</summary>
    public bool Return(ReadContext context)
    {
        if (_closed)
            return false;
        if (t_context is null)
        {
            t_context = context;
            return true;
        }
        int start = StartFor(Environment.CurrentManagedThreadId);
        for (int n = 0; n < _slots.Length; n++)
        {
            ref ReadContext? slot = ref _slots[(start + n) & (_slots.Length - 1)];
            if (Volatile.Read(ref slot) is null && Interlocked.CompareExchange(ref slot, context, null) is null)
                return true;
        }
        return false;
    }

    private int StartFor(int threadId) => threadId * SlotsPerCacheLine & (_slots.Length - 1);

    /// <summary>Drops every pooled context (at dispose: they point at mappings about to close).</summary>
    public void Clear()
    {
        _closed = true;
        if (ReferenceEquals(t_context?.Pool, this))
            t_context = null;
        for (int i = 0; i < _slots.Length; i++)
            Volatile.Write(ref _slots[i], null);
    }
}
