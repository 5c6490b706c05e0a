namespace Cairn.Paging;

internal sealed partial class PageTable
{
    /// <summary>
    /// Derives a new table from an existing one. Nodes this builder created are changed in place;
    /// nodes shared with any published table are copied on the first write that reaches them, with
    /// the path above them. <see cref="ToImmutable"/> starts a new edit session, so what it returned
    /// is never changed by later calls either.
    /// </summary>
    public sealed class Builder
    {
        private PageTableNode? _root;
        private int _rootShift;
        private int _count;
        /// <summary>The current edit session: nodes whose <see cref="PageTableNode.Owner"/> is this may change in place.</summary>
        private object _session = new();
        /// <summary>The table that equals the builder's contents, while no change was made since it was built.</summary>
        private PageTable? _unchanged;

        internal Builder(PageTable source, PageTableNode? root, int rootShift, int count)
        {
            _unchanged = source;
            _root = root;
            _rootShift = rootShift;
            _count = count;
        }

        public int Count => _count;

        public bool TryGet(long pageNumber, out PageVersion version)
        {
            if (_root is not null && (ulong)pageNumber < BoundFor(_rootShift))
                return Find(_root, _rootShift, pageNumber, out version);
            version = default;
            return false;
        }

        public void Set(long pageNumber, PageVersion version)
        {
            if ((ulong)pageNumber >= PageNumberLimit)
                throw new ArgumentOutOfRangeException(nameof(pageNumber), pageNumber, $"Page numbers are in [0, 2^40).");

            _unchanged = null;
            if (_root is null)
            {
                _rootShift = RootShiftFor(pageNumber);
            }
            else
            {
                // Grow upwards: the old root becomes slot 0 of a new root, as all its page numbers
                // have zeros in the new top digit.
                while ((ulong)pageNumber >= BoundFor(_rootShift))
                {
                    _root = PageTableNode.NewBranch(_session, 0, _root);
                    _rootShift += PageTableNode.SlotBits;
                }
            }
            _root = SetIn(_root, _rootShift, pageNumber, version);
        }

        /// <summary>Removes the page's entry; false (and nothing copied) if there was none.</summary>
        public bool Remove(long pageNumber)
        {
            if (!TryGet(pageNumber, out _))
                return false;

            _unchanged = null;
            _root = RemoveIn(_root!, _rootShift, pageNumber);
            _count--;

            // Shrink: a root whose only child is slot 0 is a level that every lookup pays for and
            // no page number needs.
            while (_root is not null && _rootShift != 0 && _root.Bitmap == 1)
            {
                _root = _root.Children![0];
                _rootShift -= PageTableNode.SlotBits;
            }
            if (_root is null)
                _rootShift = 0;
            return true;
        }

        public PageTable ToImmutable()
        {
            if (_unchanged is null)
            {
                _unchanged = new PageTable(_root, _rootShift, _count);
                // Everything built so far now belongs to a published table.
                _session = new object();
            }
            return _unchanged;
        }

        private PageTableNode SetIn(PageTableNode? node, int shift, long pageNumber, PageVersion version)
        {
            int slot = (int)(pageNumber >> shift) & PageTableNode.SlotMask;
            if (node is null)
            {
                if (shift == 0)
                {
                    _count++;
                    return PageTableNode.NewLeaf(_session, slot, version);
                }
                return PageTableNode.NewBranch(_session, slot, SetIn(null, shift - PageTableNode.SlotBits, pageNumber, version));
            }

            ulong slotBit = 1UL << slot;
            int index = node.IndexOf(slotBit);
            bool occupied = (node.Bitmap & slotBit) != 0;

            if (shift == 0)
            {
                if (occupied)
                    return node.WithVersion(_session, index, version);
                _count++;
                return node.WithVersionInserted(_session, slotBit, index, version);
            }

            if (!occupied)
                return node.WithChildInserted(_session, slotBit, index, SetIn(null, shift - PageTableNode.SlotBits, pageNumber, version));

            PageTableNode child = node.Children![index];
            PageTableNode newChild = SetIn(child, shift - PageTableNode.SlotBits, pageNumber, version);
            // A child changed in place is already owned, and so are all nodes above it: nothing to copy.
            return ReferenceEquals(newChild, child) ? node : node.WithChild(_session, index, newChild);
        }

        /// <summary>The node without the page's entry, or null if that was its last. The entry exists.</summary>
        private PageTableNode? RemoveIn(PageTableNode node, int shift, long pageNumber)
        {
            ulong slotBit = 1UL << (int)((pageNumber >> shift) & PageTableNode.SlotMask);
            int index = node.IndexOf(slotBit);

            if (shift != 0)
            {
                PageTableNode child = node.Children![index];
                PageTableNode? newChild = RemoveIn(child, shift - PageTableNode.SlotBits, pageNumber);
                if (newChild is not null)
                    return ReferenceEquals(newChild, child) ? node : node.WithChild(_session, index, newChild);
            }

            return node.Bitmap == slotBit ? null : node.WithSlotRemoved(_session, slotBit, index);
        }
    }
}
