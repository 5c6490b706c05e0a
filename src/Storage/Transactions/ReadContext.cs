using Cairn.Trees;

namespace Cairn.Transactions;

/// <summary>
/// The reusable part of a transaction: page access and the trees it opened. Read transactions rent
/// one from <see cref="ReadContextPool"/>, so a request that begins a read, opens a tree and reads a
/// key allocates nothing but the small transaction handle; while no commit has happened since the
/// context was last used, its opened trees are still valid and opening one is a dictionary hit.
/// </summary>
internal sealed class ReadContext(LowLevelTransaction low, int readerSlot)
{
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

/// <summary>A small lock-free pool of read contexts (a slot array; rent and return are one exchange each).</summary>
internal sealed class ReadContextPool
{
    private readonly ReadContext?[] _slots = new ReadContext?[64];

    public ReadContext? TryRent()
    {
        int start = Environment.CurrentManagedThreadId & (_slots.Length - 1);
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
        int start = Environment.CurrentManagedThreadId & (_slots.Length - 1);
        for (int n = 0; n < _slots.Length; n++)
        {
            ref ReadContext? slot = ref _slots[(start + n) & (_slots.Length - 1)];
            if (Volatile.Read(ref slot) is null && Interlocked.CompareExchange(ref slot, context, null) is null)
                return true;
        }
        return false;
    }

    /// <summary>Drops every pooled context (at dispose: they point at mappings about to close).</summary>
    public void Clear()
    {
        for (int i = 0; i < _slots.Length; i++)
            Volatile.Write(ref _slots[i], null);
    }
}
