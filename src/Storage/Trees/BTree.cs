using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Trees;

/// <summary>
/// One B+tree reached through a transaction's <see cref="IPageAccess"/>. Page formats are in
/// docs/on-disk-format.md ("Tree pages"). Not thread-safe: one instance per tree per transaction,
/// and all writes to the tree in that transaction go through that instance (its <see cref="Version"/>
/// is how cursors notice them).
/// </summary>
internal sealed unsafe partial class BTree
{
    private const long NoPage = -1;

    private readonly IPageAccess _pages;
    private TreeState _state;

    /// <summary>
    /// Where the last insert put its node (leaf page and slot): an insert into the next slot of the same leaf is an
    /// ascending run, and a split there keeps the leaf as full as it is (BTree.Split.cs). Only a split policy, so a
    /// stale place (the page freed and reused, or entries moved since) costs at most one lopsided split.
    /// </summary>
    private long _lastInsertPage = NoPage;
    private int _lastInsertIndex;

    public BTree(IPageAccess pages, TreeState state)
    {
        ArgumentNullException.ThrowIfNull(pages);
        _pages = pages;
        _state = state;
    }

    /// <summary>The tree's metadata as of the last operation; store it when <see cref="IsModified"/>.</summary>
    public TreeState State => _state;

    public bool IsModified { get; private set; }

    /// <summary>Incremented by every change, so cursors can tell that their page pointers went stale.</summary>
    public long Version { get; private set; }

    internal IPageAccess Pages => _pages;

    internal long RootPage => _state.RootPage;

    /// <summary>Allocates the root leaf of a new, empty tree.</summary>
    public static TreeState CreateEmpty(IPageAccess pages)
    {
        WritablePage root = pages.AllocatePages(1, out long rootPage);
        TreePage.Initialize(root, PageFlags.Leaf);
        return new TreeState { RootPage = rootPage, Depth = 1, LeafPages = 1 };
    }

    /// <summary>
    /// Looks a key up. The value points into the page (or overflow run) and stays valid until the tree
    /// is next modified or the transaction ends.
    /// </summary>
    public bool TryGet(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        ValidateKey(key);
        byte* page = FindLeaf(key);
        int index = TreePage.SearchLeaf(page, key, out bool found);
        if (!found)
        {
            value = default;
            return false;
        }
        value = ReadValue(TreePage.Node(page, index));
        return true;
    }

    /// <summary>A leaf node's value, following it to its overflow run if needed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal ReadOnlySpan<byte> ReadValue(byte* leafNode)
    {
        int size = ((LeafNodeHeader*)leafNode)->ValueSize;
        byte* start = TreePage.LeafValueStart(leafNode);
        if (((LeafNodeHeader*)leafNode)->Flags == LeafNodeFlags.Inline)
            return new ReadOnlySpan<byte>(start, size);
        return new ReadOnlySpan<byte>(_pages.GetPage(Unsafe.ReadUnaligned<long>(start)) + PageHeader.Size, size);
    }

    /// <summary>The leaf whose range holds the key, for reading only.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private byte* FindLeaf(ReadOnlySpan<byte> key)
    {
        long pageNumber = _state.RootPage;
        byte* page = _pages.GetPage(pageNumber);
        ProbePrefetch.PageHead(page);
        int levels = 1;
        while (TreePage.IsBranch(page))
        {
            pageNumber = TreePage.BranchChild(page, TreePage.SearchBranch(page, key));
            page = _pages.GetPage(pageNumber);
            ProbePrefetch.PageHead(page);
            if (++levels > TreePath.MaxDepth)
                ThrowCorrupt(pageNumber, $"the tree is deeper than {TreePath.MaxDepth} levels (a page cycle?)");
        }
        if (!TreePage.IsLeaf(page))
            ThrowNotTreePage(pageNumber, page);
        return page;
    }

    /// <summary>Fills <paramref name="path"/> from the root to the leaf for the key; returns the leaf slot (first key ≥ key).</summary>
    private int FindPath(ReadOnlySpan<byte> key, ref TreePath path, out bool found)
    {
        path.Count = 0;
        long pageNumber = _state.RootPage;
        byte* page = _pages.GetPage(pageNumber);
        while (TreePage.IsBranch(page))
        {
            int childIndex = TreePage.SearchBranch(page, key);
            path.Push(pageNumber, childIndex);
            pageNumber = TreePage.BranchChild(page, childIndex);
            page = _pages.GetPage(pageNumber);
        }
        if (!TreePage.IsLeaf(page))
            ThrowNotTreePage(pageNumber, page);
        int index = TreePage.SearchLeaf(page, key, out found);
        path.Push(pageNumber, index);
        return index;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void ValidateKey(ReadOnlySpan<byte> key)
    {
        if ((uint)(key.Length - 1) >= StorageConstants.MaxKeySize)
            ThrowInvalidKey(key.Length);
    }

    /// <summary>
    /// Points a read-only tree object at another state of the same tree (a pooled read context reusing it for
    /// a newer snapshot), so reuse allocates nothing. Cursors over it see the version change and reposition.
    /// </summary>
    internal void Repoint(TreeState state)
    {
        if (IsModified)
            throw new InvalidOperationException("A modified tree is its transaction's and cannot be re-pointed.");
        _state = state;
        Version++;
    }

    /// <summary>
    /// A tree object of a writer's context kept from transaction to transaction (the merger's: its root tree and the
    /// trees it opened by name): the previous
    /// transaction has ended (committed or discarded, its handles expired), so its object starts over, unmodified, on
    /// <paramref name="state"/>.
    /// </summary>
    internal void StartOverForNextWriter(TreeState state)
    {
        _state = state;
        IsModified = false;
        _lastInsertPage = NoPage;
        Version++;
    }

    private void MarkModified()
    {
        IsModified = true;
        Version++;
    }

    private void EnsureWritable()
    {
        if (!_pages.IsWritable)
            throw new ReadOnlyTransactionException();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowInvalidKey(int length) => throw new InvalidKeyException(length);

    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void ThrowCorrupt(long pageNumber, string problem) => throw new TreeCorruptionException(pageNumber, problem);

    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void ThrowNotTreePage(long pageNumber, byte* page) =>
        throw new TreeCorruptionException(pageNumber, $"expected a branch or leaf page, found flags {((PageHeader*)page)->Flags}");
}
