using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cairn.Paging;

namespace Cairn.Trees;

/// <summary>
/// Ordered iteration over one <see cref="BTree"/>. Reusable: position it again with Seek/First/Last,
/// or bind it to another tree with <see cref="Reset"/>. After a step returns false the cursor is
/// unpositioned until the next Seek/First/Last.
/// <para>
/// The tree may be modified through the same <see cref="BTree"/> while the cursor is open. The cursor
/// keeps a copy of its current key and the tree's <see cref="BTree.Version"/>; when the version has
/// moved on, its page pointers may be stale, so before doing anything it finds its place again by key:
/// MoveNext goes to the first key above the saved one, MovePrevious to the last key below it, and
/// Key/Value/IsPositioned to the saved key or, if that was deleted, the next one.
/// </para>
/// <para>
/// Over a read-only tree nothing can change under the cursor within its transaction, so it keeps no key: copying
/// each key on every step was a quarter of a full scan's time (docs/benchmarks.md, "One-shot scan"). The only
/// version change a read-only tree sees is its pooled read context re-pointing it at a newer snapshot for the next
/// transaction, after the public cursor of the old one has ended; a cursor stepped across that is an engine bug,
/// refused rather than positioned by a key it did not keep.
/// </para>
/// </summary>
internal sealed unsafe class BTreeCursor
{
    // Pinned, allocated once per cursor over a writable tree: the saved key is copied on every step and compared by
    // pointer. Null over a read-only tree, whose cursor keeps no key.
    private byte[]? _savedKeyBuffer;
    private byte* _savedKey;
    private int _savedKeyLength;
    private bool _keepsKey;

    private BTree _tree;
    private IPageAccess _pages;
    private TreePath _path;
    private byte* _leaf;
    private int _leafCount;
    private int _index;
    private long _version;
    private bool _positioned;

    public BTreeCursor(BTree tree)
    {
        ArgumentNullException.ThrowIfNull(tree);
        _tree = tree;
        _pages = tree.Pages;
        BindKeyKeeping();
    }

    /// <summary>Unpositions the cursor and binds it to <paramref name="tree"/>, keeping its buffers.</summary>
    public void Reset(BTree tree)
    {
        ArgumentNullException.ThrowIfNull(tree);
        _tree = tree;
        _pages = tree.Pages;
        _positioned = false;
        BindKeyKeeping();
    }

    private void BindKeyKeeping()
    {
        _keepsKey = _pages.IsWritable;
        if (_keepsKey && _savedKeyBuffer is null)
        {
            _savedKeyBuffer = GC.AllocateUninitializedArray<byte>(StorageConstants.MaxKeySize, pinned: true);
            _savedKey = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_savedKeyBuffer));
        }
    }

    public bool IsPositioned
    {
        get
        {
            if (_positioned && _version != _tree.Version)
                Relocate();
            return _positioned;
        }
    }

    /// <summary>The current key, pointing into the page: valid until the tree is next modified.</summary>
    public ReadOnlySpan<byte> Key
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get
        {
            if (!_positioned || _version != _tree.Version)
                EnsureCurrent();
            return TreePage.LeafKey(TreePage.Node(_leaf, _index));
        }
    }

    /// <summary>The current value, pointing into the page or overflow run: valid until the tree is next modified.</summary>
    public ReadOnlySpan<byte> Value
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get
        {
            if (!_positioned || _version != _tree.Version)
                EnsureCurrent();
            return _tree.ReadValue(TreePage.Node(_leaf, _index));
        }
    }

    /// <summary>Positions on the first entry whose key is ≥ <paramref name="key"/>.</summary>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        BTree.ValidateKey(key);
        return Settle(SeekLowerBound(key));
    }

    public bool First() => Settle(DescendToEdge(first: true));

    public bool Last() => Settle(DescendToEdge(first: false));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool MoveNext()
    {
        if (_positioned && _version == _tree.Version && ++_index < _leafCount)
        {
            if (_keepsKey)
                SaveKey();
            return true;
        }
        return MoveNextSlow();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool MovePrevious()
    {
        if (_positioned && _version == _tree.Version && --_index >= 0)
        {
            if (_keepsKey)
                SaveKey();
            return true;
        }
        return MovePreviousSlow();
    }

    // The per-leaf paths are compiled fully optimised at their first call: a one-shot scan of a million keys ends within
    // tiered compilation's delay, so it ran every leaf change on unoptimised code (docs/benchmarks.md, "One-shot scan").
    // They run once per leaf, so dynamic PGO has little to give them.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private bool MoveNextSlow()
    {
        if (!_positioned)
            return false;
        if (_version == _tree.Version)
            return Settle(NextLeaf());

        ReadOnlySpan<byte> saved = SavedKey;
        bool found = SeekLowerBound(saved);
        if (found && CurrentKeyEquals(saved))
            found = StepForward();
        return Settle(found);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private bool MovePreviousSlow()
    {
        if (!_positioned)
            return false;
        if (_version == _tree.Version)
            return Settle(PreviousLeaf());

        // Whatever is at or after the saved key, the entry before it is the last one below the key.
        bool found = SeekLowerBound(SavedKey) ? StepBackward() : DescendToEdge(first: false);
        return Settle(found);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void EnsureCurrent()
    {
        if (_positioned)
            Relocate();
        if (!_positioned)
            throw new InvalidOperationException("The cursor is not positioned on an entry.");
    }

    /// <summary>After a modification: back to the saved key, or the next one if it is gone.</summary>
    private void Relocate() => Settle(SeekLowerBound(SavedKey));

    private ReadOnlySpan<byte> SavedKey
    {
        get
        {
            if (!_keepsKey)
                throw new InvalidOperationException("A read-only tree changed version under its cursor: it keeps no key to find its place again.");
            return new(_savedKey, _savedKeyLength);
        }
    }

    private bool CurrentKeyEquals(ReadOnlySpan<byte> key) => TreePage.LeafKey(TreePage.Node(_leaf, _index)).SequenceEqual(key);

    private bool Settle(bool positioned)
    {
        _positioned = positioned;
        _version = _tree.Version;
        if (positioned && _keepsKey)
            SaveKey();
        return positioned;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void SaveKey()
    {
        byte* node = TreePage.Node(_leaf, _index);
        int length = ((LeafNodeHeader*)node)->KeySize;
        Buffer.MemoryCopy(node + LeafNodeHeader.Size, _savedKey, StorageConstants.MaxKeySize, length);
        _savedKeyLength = length;
    }

    private bool StepForward() => ++_index < _leafCount || NextLeaf();

    private bool StepBackward() => --_index >= 0 || PreviousLeaf();

    /// <summary>Descends to the first entry ≥ key, filling the path; false if every key is smaller.</summary>
    private bool SeekLowerBound(ReadOnlySpan<byte> key)
    {
        _path.Count = 0;
        long pageNumber = _tree.RootPage;
        byte* page = _pages.GetPage(pageNumber);
        while (TreePage.IsBranch(page))
        {
            int childIndex = TreePage.SearchBranch(page, key);
            _path.Push(pageNumber, childIndex);
            pageNumber = TreePage.BranchChild(page, childIndex);
            page = _pages.GetPage(pageNumber);
        }
        EnterLeaf(pageNumber, page);
        _index = TreePage.SearchLeaf(page, key, out _);
        return _index < _leafCount || NextLeaf();
    }

    private bool DescendToEdge(bool first)
    {
        _path.Count = 0;
        long pageNumber = _tree.RootPage;
        byte* page = _pages.GetPage(pageNumber);
        while (TreePage.IsBranch(page))
        {
            int childIndex = first ? 0 : TreePage.Count(page) - 1;
            _path.Push(pageNumber, childIndex);
            pageNumber = TreePage.BranchChild(page, childIndex);
            page = _pages.GetPage(pageNumber);
        }
        EnterLeaf(pageNumber, page);
        if (_leafCount == 0)
            return first ? NextLeaf() : PreviousLeaf();
        _index = first ? 0 : _leafCount - 1;
        return true;
    }

    private void EnterLeaf(long pageNumber, byte* page)
    {
        if (!TreePage.IsLeaf(page))
            BTree.ThrowNotTreePage(pageNumber, page);
        _path.Push(pageNumber, 0);
        _leaf = page;
        _leafCount = TreePage.Count(page);
    }

    /// <summary>Moves to the first entry of the next non-empty leaf; false at the end of the tree.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool NextLeaf()
    {
        int leafLevel = _path.LeafLevel;
        while (true)
        {
            int level = leafLevel - 1;
            byte* page = null;
            for (; level >= 0; level--)
            {
                page = _pages.GetPage(_path.Pages[level]);
                int next = _path.Indices[level] + 1;
                if (next < TreePage.Count(page))
                {
                    _path.Indices[level] = next;
                    break;
                }
            }
            if (level < 0)
                return false;

            long child = TreePage.BranchChild(page, _path.Indices[level]);
            for (int l = level + 1; l < leafLevel; l++)
            {
                page = _pages.GetPage(child);
                _path.Pages[l] = child;
                _path.Indices[l] = 0;
                child = TreePage.BranchChild(page, 0);
            }
            MoveToLeaf(leafLevel, child);
            PrefetchFollowingLeaf(page, _path.Indices[leafLevel - 1]);
            if (_leafCount > 0)
            {
                _index = 0;
                return true;
            }
        }
    }

    /// <summary>Moves to the last entry of the previous non-empty leaf; false at the start of the tree.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool PreviousLeaf()
    {
        int leafLevel = _path.LeafLevel;
        while (true)
        {
            int level = leafLevel - 1;
            byte* page = null;
            for (; level >= 0; level--)
            {
                int previous = _path.Indices[level] - 1;
                if (previous >= 0)
                {
                    page = _pages.GetPage(_path.Pages[level]);
                    _path.Indices[level] = previous;
                    break;
                }
            }
            if (level < 0)
                return false;

            long child = TreePage.BranchChild(page, _path.Indices[level]);
            for (int l = level + 1; l < leafLevel; l++)
            {
                page = _pages.GetPage(child);
                int last = TreePage.Count(page) - 1;
                _path.Pages[l] = child;
                _path.Indices[l] = last;
                child = TreePage.BranchChild(page, last);
            }
            MoveToLeaf(leafLevel, child);
            if (_leafCount > 0)
            {
                _index = _leafCount - 1;
                return true;
            }
        }
    }

    /// <summary>
    /// A scan steps through a leaf's entries for a while before it needs the next leaf, which lies anywhere in the map
    /// or scratch memory: asking for its head now overlaps that miss with this leaf's work instead of stalling on it
    /// (the first touch of each leaf was a sixth of a full scan's time).
    /// </summary>
    private void PrefetchFollowingLeaf(byte* parent, int childIndex)
    {
        if (childIndex + 1 < TreePage.Count(parent))
            ProbePrefetch.PageHead(_pages.GetPage(TreePage.BranchChild(parent, childIndex + 1)));
    }

    private void MoveToLeaf(int leafLevel, long pageNumber)
    {
        byte* page = _pages.GetPage(pageNumber);
        if (!TreePage.IsLeaf(page))
            BTree.ThrowNotTreePage(pageNumber, page);
        _path.Pages[leafLevel] = pageNumber;
        _leaf = page;
        _leafCount = TreePage.Count(page);
    }
}
