using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Transactions;

/// <summary>
/// The reusable part of a transaction: page access and the trees it opened. Read transactions rent
/// one from <see cref="ReadContextPool"/>, so a request that begins a read, opens a tree and reads a
/// key allocates nothing (with <c>ReadSnapshot</c>; a <c>ReadTransaction</c> allocates its handle); while
/// no commit has happened since the context was last used, its opened trees are still valid and opening
/// one is a dictionary hit.
/// </summary>
/// <remarks>
/// <see cref="Generation"/> is what makes reuse safe: every handle given out for a use (a transaction, a
/// tree, a cursor) remembers the generation it was given out in, and the end of the use increments it, so
/// a handle kept past its transaction's end throws instead of reading whatever snapshot the context
/// serves next.
/// </remarks>
internal sealed class ReadContext(LowLevelTransaction low, int readerSlot, ReadContextPool? pool = null)
{
    private long _generation;
    private BTree? _root;
    private BTree? _spareRoot;
    // A writer's context kept from transaction to transaction (the merger's): the tree objects the previous
    // transaction opened by name, started over when the next one opens the same tree, so a merged transaction
    // allocates no tree object. At most MaxSpareTrees names; null in a reader's context.
    private Dictionary<string, BTree>? _spareTrees;
    private const int MaxSpareTrees = 64;

    /// <summary>Which use of this context is current; incremented (once) when a use ends.</summary>
    public long Generation => Volatile.Read(ref _generation);

    /// <summary>True while <paramref name="generation"/> is the current use.</summary>
    public bool IsCurrent(long generation) => _generation == generation;

    /// <summary>
    /// Ends use <paramref name="generation"/>: true for the one call that ended it, false when it had already
    /// ended (a second Dispose, or a stale copy of a struct handle), which must then do nothing.
    /// </summary>
    public bool TryEnd(long generation) => Interlocked.CompareExchange(ref _generation, generation + 1, generation) == generation;

    /// <summary>The pool (so, the environment) this context belongs to; null for the writer's.</summary>
    public ReadContextPool? Pool { get; } = pool;

    public LowLevelTransaction Low { get; } = low;

    /// <summary>The reader-table slot this context keeps for its whole life (-1 for the writer's).</summary>
    public int ReaderSlot { get; } = readerSlot;

    /// <summary>The last tree opened by name, so the usual one-tree request skips the dictionary.</summary>
    private string? _lastTreeName;

    private BTree? _lastTree;

    /// <summary>Trees opened by name in this state (in a write transaction: every tree it may have modified).</summary>
    public Dictionary<string, BTree> Trees { get; } = new(StringComparer.Ordinal);

    /// <summary>Trees opened through a handle in a read transaction, by the handle's id; kept across states and re-pointed.</summary>
    private readonly Dictionary<int, HandleTree> _handleTrees = [];

    /// <summary>The root tree as of this context's state (the writer's changes included); one object per context.</summary>
    public BTree RootTree
    {
        get
        {
            if (_root is { } root)
                return root;
            if (_spareRoot is { } spare)
            {
                spare.Repoint(Low.RootTree);
                return _root = spare;
            }
            return _root = _spareRoot = new BTree(Low, Low.RootTree);
        }
    }

    /// <summary>Points the context at <paramref name="state"/>, forgetting trees opened on another state.</summary>
    public void Bind(EnvironmentState state)
    {
        if (ReferenceEquals(Low.State, state))
            return;
        Low.Rebind(state);
        Trees.Clear();
        _root = null;
        _lastTreeName = null;
        _lastTree = null;
    }

    /// <summary>
    /// A writer's context kept from transaction to transaction (the merger's): the next transaction on
    /// <paramref name="state"/>. The previous transaction's handles have expired (its generation ended), so the
    /// trees it opened are forgotten and the root tree object starts over on the new state.
    /// </summary>
    public void ReopenForWriting(EnvironmentState state)
    {
        Low.ReopenForWriting(state);
        KeepTreesAsSpares();
        _root = null;
        _spareRoot?.StartOverForNextWriter(Low.RootTree);
        _lastTreeName = null;
        _lastTree = null;
    }

    /// <summary>Opens a tree by name: the last one, one opened earlier in this state, or a root-tree lookup.</summary>
    public bool TryOpenTree(string name, string dataFilePath, out BTree tree)
    {
        if (ReferenceEquals(name, _lastTreeName))
        {
            tree = _lastTree!;
            return true;
        }
        if (!Trees.TryGetValue(name, out tree!))
        {
            if (!TreeDirectory.TryRead(RootTree, name, out var state, dataFilePath))
                return false;
            tree = SpareOrNewTree(name, state);
            Trees.Add(name, tree);
        }
        _lastTreeName = name;
        _lastTree = tree;
        return true;
    }

    /// <summary>
    /// Opens the tree a handle names. A read context keeps one tree object per handle and re-points it when its
    /// state changed; the tree's state comes from the handle when a transaction on the same snapshot looked it
    /// up already, from the root tree otherwise. A write transaction whose root tree is unchanged so far may
    /// take the state from the handle too; once it has created or deleted a tree (its root tree is modified),
    /// or opened this one, it goes by name as <see cref="TryOpenTree(string, string, out BTree)"/> does.
    /// </summary>
    public bool TryOpenTree(TreeHandleCache handle, string dataFilePath, out BTree tree)
    {
        var snapshot = Low.State;
        if (Low.IsWritable)
            return TryOpenTreeForWriting(handle, dataFilePath, out tree);
        if (_handleTrees.TryGetValue(handle.Id, out var opened) && ReferenceEquals(opened.State, snapshot))
        {
            tree = opened.Tree;
            return true;
        }
        if (!TryResolve(handle, snapshot.TransactionId, dataFilePath, out var state))
        {
            tree = null!;
            return false;
        }
        if (opened is null)
        {
            opened = new HandleTree(new BTree(Low, state));
            _handleTrees.Add(handle.Id, opened);
        }
        else
        {
            opened.Tree.Repoint(state);
        }
        opened.State = snapshot;
        tree = opened.Tree;
        return true;
    }

    private bool TryOpenTreeForWriting(TreeHandleCache handle, string dataFilePath, out BTree tree)
    {
        if (Trees.TryGetValue(handle.Name, out tree!))
            return true;
        if (_root is { IsModified: true })
            return TryOpenTree(handle.Name, dataFilePath, out tree);
        if (!TryResolve(handle, Low.State.TransactionId, dataFilePath, out var state))
            return false;
        tree = SpareOrNewTree(handle.Name, state);
        Trees.Add(handle.Name, tree);
        return true;
    }

    /// <summary>The previous transaction's handles have expired: its tree objects become spares, the open set empties.</summary>
    private void KeepTreesAsSpares()
    {
        if (Trees.Count > 0)
        {
            _spareTrees ??= new Dictionary<string, BTree>(StringComparer.Ordinal);
            foreach (var (name, tree) in Trees)
            {
                if (_spareTrees.Count < MaxSpareTrees || _spareTrees.ContainsKey(name))
                    _spareTrees[name] = tree;
            }
        }
        Trees.Clear();
    }

    /// <summary>The spare object of the tree <paramref name="name"/>, started over on <paramref name="state"/>, or a new one.</summary>
    private BTree SpareOrNewTree(string name, TreeState state)
    {
        if (_spareTrees is null || !_spareTrees.Remove(name, out var spare))
            return new BTree(Low, state);
        spare.StartOverForNextWriter(state);
        return spare;
    }

    /// <summary>The tree's state in this context's (unmodified) root tree, from the handle or a lookup it then keeps.</summary>
    private bool TryResolve(TreeHandleCache handle, long transactionId, string dataFilePath, out TreeState state)
    {
        if (handle.TryGet(transactionId, out state))
            return true;
        if (!TreeDirectory.TryRead(RootTree, handle.Name, out state, dataFilePath))
            return false;
        handle.Remember(transactionId, state);
        return true;
    }

    /// <summary>A write transaction deleted the tree: forget its tree object.</summary>
    public void ForgetTree(string name)
    {
        Trees.Remove(name);
        _lastTreeName = null;
        _lastTree = null;
    }

    /// <summary>The names of every tree in this context's root tree, in order.</summary>
    public List<string> GetTreeNames()
    {
        var names = new List<string>();
        var cursor = new BTreeCursor(RootTree);
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            names.Add(TreeDirectory.DecodeName(cursor.Key));
        return names;
    }

    /// <summary>A read context's tree object for one handle and the state it currently points at.</summary>
    private sealed class HandleTree(BTree tree)
    {
        public BTree Tree { get; } = tree;

        public EnvironmentState? State { get; set; }
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

    /// <summary>
    /// A pooled context (or a new one over <paramref name="dataFile"/> and <paramref name="scratch"/>), its reader slot
    /// marked reading and pinned to <paramref name="states"/>' current state: the start of a read transaction.
    /// </summary>
    public ReadContext RentPinned(StatePublisher states, DataFile dataFile, ScratchAllocator scratch)
    {
        var context = TryRent() ?? new ReadContext(LowLevelTransaction.ForReading(dataFile, scratch, states.Current), states.Readers.Reserve(), this);
        states.Readers.MarkReadStarted(context.ReaderSlot);
        context.Bind(states.Pin(context.ReaderSlot));
        return context;
    }

    /// <summary>The end of a read transaction: its slot goes idle, and the context back to the pool (or its slot, if the pool is full).</summary>
    public void EndRead(ReadContext context, StatePublisher states)
    {
        states.Readers.MarkIdle(context.ReaderSlot);
        if (!Return(context))
            states.Readers.Release(context.ReaderSlot);
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
