using Cairn.Trees;

namespace Cairn.Transactions;

/// <summary>
/// The reusable part of a transaction: page access and the trees it opened. Read transactions rent
/// one from <see cref="ReadContextPool"/>, so a request that begins a read, opens a tree and reads a
/// key allocates nothing but the small transaction handle; while no commit has happened since the
/// context was last used, its opened trees are still valid and opening one is a dictionary hit.
/// </summary>
internal sealed class ReadContext(LowLevelTransaction low)
{
    public LowLevelTransaction Low { get; } = low;

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

    public void Return(ReadContext context)
    {
        int start = Environment.CurrentManagedThreadId & (_slots.Length - 1);
        for (int n = 0; n < _slots.Length; n++)
        {
            ref ReadContext? slot = ref _slots[(start + n) & (_slots.Length - 1)];
            if (Volatile.Read(ref slot) is null && Interlocked.CompareExchange(ref slot, context, null) is null)
                return;
        }
        // Pool full: let the context go.
    }

    /// <summary>Drops every pooled context (at dispose: they point at mappings about to close).</summary>
    public void Clear()
    {
        for (int i = 0; i < _slots.Length; i++)
            Volatile.Write(ref _slots[i], null);
    }
}
