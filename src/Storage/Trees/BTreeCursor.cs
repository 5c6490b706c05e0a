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
/// </summary>
internal sealed unsafe class BTreeCursor
{
    // Pinned, allocated once: the saved key is copied on every step and compared by pointer.
    private readonly byte[] _savedKeyBuffer;
    private readonly byte* _savedKey;
    private int _savedKeyLength;

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
        _savedKeyBuffer = GC.AllocateUninitializedArray<byte>(StorageConstants.MaxKeySize, pinned: true);
        _savedKey = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_savedKeyBuffer));
        _tree = tree;
        _pages = tree.Pages;
    }

    /// <summary>Unpositions the cursor and binds it to <paramref name="tree"/>, keeping its buffers.</summary>
    public void Reset(BTree tree)
    {
        ArgumentNullException.ThrowIfNull(tree);
        _tree = tree;
        _pages = tree.Pages;
        _positioned = false;
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
            SaveKey();
            return true;
        }
        return MovePreviousSlow();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
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

    [MethodImpl(MethodImplOptions.NoInlining)]
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

    private ReadOnlySpan<byte> SavedKey => new(_savedKey, _savedKeyLength);

    private bool CurrentKeyEquals(ReadOnlySpan<byte> key) => TreePage.LeafKey(TreePage.Node(_leaf, _index)).SequenceEqual(key);

    private bool Settle(bool positioned)
    {
        _positioned = positioned;
        _version = _tree.Version;
        if (positioned)
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
            if (_leafCount > 0)
            {
                _index = 0;
                return true;
            }
        }
    }

    /// <summary>Moves to the last entry of the previous non-empty leaf; false at the start of the tree.</summary>
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
