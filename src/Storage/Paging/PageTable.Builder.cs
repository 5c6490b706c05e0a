namespace Cairn.Paging;

internal sealed partial class PageTable
{
    /// <summary>
    /// Derives a new table from an existing one, path-copying: arrays this builder created are changed
    /// in place, arrays shared with any published table are copied on the first write that reaches
    /// them (writes own the whole path from the root down before changing anything). After
    /// <see cref="ToImmutable"/> the builder works in a new session, so the table it returned is
    /// never changed by later calls either.
    /// </summary>
    public sealed class Builder
    {
        private PageTableNode _root;
        private int _rootShift;
        private int _count;
        private long _session = NodeArrays.NewSession();
        /// <summary>The table that equals the builder's contents, while no change was made since.</summary>
        private PageTable? _unchanged;
        // Where published arrays this builder copied or dropped go (null: nowhere, the GC takes them).
        private List<object>? _replaced;

        internal Builder(PageTable source, PageTableNode root, int rootShift, int count, List<object>? replaced)
        {
            _unchanged = source;
            _replaced = replaced;
            _root = root;
            _rootShift = rootShift;
            _count = count;
        }

        /// <summary>
        /// Starts this builder over on <paramref name="source"/>, as a new builder of it would start (in a new session, so
        /// nothing it built before is changed again): a committer keeps one builder instead of making one per commit.
        /// </summary>
        internal void StartOver(PageTable source, PageTableNode root, int rootShift, int count, List<object>? replaced)
        {
            _unchanged = source;
            _replaced = replaced;
            _root = root;
            _rootShift = rootShift;
            _count = count;
            _session = NodeArrays.NewSession();
        }

        public int Count => _count;

        public bool TryGet(long pageNumber, out PageVersion version)
        {
            if (_root.Items is not null && (ulong)pageNumber < BoundFor(_rootShift))
                return Find(_root.Bitmap, _root.Items, _rootShift, pageNumber, out version);
            version = default;
            return false;
        }

        public void Set(long pageNumber, PageVersion version)
        {
            if ((ulong)pageNumber >= PageNumberLimit)
                throw new ArgumentOutOfRangeException(nameof(pageNumber), pageNumber, "Page numbers are in [0, 2^40).");

            _unchanged = null;
            if (_root.Items is null)
            {
                _rootShift = RootShiftFor(pageNumber);
            }
            else
            {
                // Grow upwards: the old root becomes slot 0 of a new root, as all its page numbers
                // have a zero in the new top digit.
                while ((ulong)pageNumber >= BoundFor(_rootShift))
                {
                    PageTableNode[] children = NodeArrays.NewChildren(_session, capacity: 1);
                    children[1] = _root;
                    _root = new PageTableNode { Bitmap = 1, Items = children };
                    _rootShift += PageTableNode.SlotBits;
                }
            }
            SetIn(ref _root, _rootShift, pageNumber, version);
        }

        /// <summary>Removes the page's entry; false (and nothing copied) if there was none.</summary>
        public bool Remove(long pageNumber)
        {
            if (!TryGet(pageNumber, out _))
                return false;

            _unchanged = null;
            RemoveIn(ref _root, _rootShift, pageNumber);
            _count--;

            // Shrink: a root whose only child is slot 0 is a level that every lookup pays for and
            // no page number needs.
            while (_rootShift != 0 && _root.Bitmap == 1)
            {
                object dropped = _root.Items!;
                _root = _root.Children[1];
                _rootShift -= PageTableNode.SlotBits;
                NodeArrays.Drop(dropped, _session, _replaced);
            }
            if (_root.Bitmap == 0)
                _rootShift = 0;
            return true;
        }

        public PageTable ToImmutable()
        {
            if (_unchanged is null)
            {
                _unchanged = new PageTable(_root, _rootShift, _count);
                // Everything built so far is now reachable from a published table.
                _session = NodeArrays.NewSession();
            }
            return _unchanged;
        }

        /// <summary>
        /// Sets the entry below <paramref name="node"/>, a slot in an array this session owns (or the
        /// builder's root), so the node's new bitmap and array can be stored in place.
        /// </summary>
        private void SetIn(ref PageTableNode node, int shift, long pageNumber, PageVersion version)
        {
            ulong slotBit = 1UL << (int)((pageNumber >> shift) & PageTableNode.SlotMask);

            if (node.Items is null)
            {
                node.Bitmap = slotBit;
                if (shift == 0)
                {
                    node.Items = NodeArrays.NewVersions(_session, version);
                    _count++;
                    return;
                }
                PageTableNode[] path = NodeArrays.NewChildren(_session, capacity: 1);
                node.Items = path;
                SetIn(ref path[1], shift - PageTableNode.SlotBits, pageNumber, version);
                return;
            }

            int count = node.Count;
            int index = node.IndexOf(slotBit);
            bool occupied = (node.Bitmap & slotBit) != 0;

            if (shift == 0)
            {
                if (occupied)
                {
                    PageVersion[] versions = NodeArrays.Own(node.Versions, count, _session, _replaced);
                    versions[1 + index] = version;
                    node.Items = versions;
                }
                else
                {
                    node.Items = NodeArrays.Insert(node.Versions, count, index, version, _session, _replaced);
                    node.Bitmap |= slotBit;
                    _count++;
                }
                return;
            }

            PageTableNode[] children;
            if (occupied)
            {
                children = NodeArrays.Own(node.Children, count, _session, _replaced);
            }
            else
            {
                children = NodeArrays.Insert(node.Children, count, index, default, _session, _replaced);
                node.Bitmap |= slotBit;
            }
            node.Items = children;
            SetIn(ref children[1 + index], shift - PageTableNode.SlotBits, pageNumber, version);
        }

        /// <summary>Removes the entry, which exists, below <paramref name="node"/>; the node becomes empty if it was its last.</summary>
        private void RemoveIn(ref PageTableNode node, int shift, long pageNumber)
        {
            ulong slotBit = 1UL << (int)((pageNumber >> shift) & PageTableNode.SlotMask);
            int count = node.Count;
            int index = node.IndexOf(slotBit);

            if (shift != 0)
            {
                PageTableNode[] children = NodeArrays.Own(node.Children, count, _session, _replaced);
                node.Items = children;
                ref PageTableNode child = ref children[1 + index];
                RemoveIn(ref child, shift - PageTableNode.SlotBits, pageNumber);
                if (child.Bitmap != 0)
                    return;
            }

            // The entry, or a child that just became empty, leaves this node.
            if (count == 1)
            {
                NodeArrays.Drop(node.Items!, _session, _replaced);
                node = default;
                return;
            }
            if (shift == 0)
            {
                PageVersion[] versions = NodeArrays.Own(node.Versions, count, _session, _replaced);
                NodeArrays.RemoveInPlace(versions, count, index);
                node.Items = versions;
            }
            else
            {
                NodeArrays.RemoveInPlace(node.Children, count, index); // owned on the way down
            }
            node.Bitmap &= ~slotBit;
        }
    }
}
