using System.Numerics;
using System.Runtime.CompilerServices;

namespace Cairn.Paging;

internal sealed partial class PageTable
{
    /// <summary>
    /// Depth-first walk in slot order, which is page-number order. A struct with the path inline, so
    /// <c>foreach</c> over a table allocates nothing.
    /// </summary>
    public struct Enumerator
    {
        private NodePath _path;
        /// <summary>Per level: the slots of that level's node not visited yet.</summary>
        private SlotSet _unvisited;
        private int _depth;
        private readonly int _rootShift;
        private long _pageNumber;
        private PageTableEntry _current;

        internal Enumerator(PageTableNode root, int rootShift)
        {
            _rootShift = rootShift;
            _path[0] = root;
            _unvisited[0] = root.Bitmap;
        }

        public readonly PageTableEntry Current => _current;

        public bool MoveNext()
        {
            while (_depth >= 0)
            {
                ulong unvisited = _unvisited[_depth];
                if (unvisited == 0)
                {
                    _path[_depth] = default;
                    _depth--;
                    continue;
                }

                int slot = BitOperations.TrailingZeroCount(unvisited);
                _unvisited[_depth] = unvisited & (unvisited - 1);
                PageTableNode node = _path[_depth];
                int index = node.IndexOf(1UL << slot);
                int shift = _rootShift - _depth * PageTableNode.SlotBits;
                _pageNumber = (_pageNumber & ~((long)PageTableNode.SlotMask << shift)) | ((long)slot << shift);

                if (shift == 0)
                {
                    _current = new PageTableEntry(_pageNumber, node.Versions[1 + index]);
                    return true;
                }

                PageTableNode child = node.Children[1 + index];
                _depth++;
                _path[_depth] = child;
                _unvisited[_depth] = child.Bitmap;
            }
            return false;
        }
    }

    /// <summary>The entries of <see cref="EntriesUpTo"/>, enumerable with <c>foreach</c> without allocating.</summary>
    public readonly struct EntriesUpToTransaction(PageTable table, long transactionId)
    {
        public FilteringEnumerator GetEnumerator() => new(table.GetEnumerator(), transactionId);

        public struct FilteringEnumerator(Enumerator all, long transactionId)
        {
            private Enumerator _all = all;

            public readonly PageTableEntry Current => _all.Current;

            public bool MoveNext()
            {
                while (_all.MoveNext())
                {
                    if (_all.Current.Version.TransactionId <= transactionId)
                        return true;
                }
                return false;
            }
        }
    }

    [InlineArray(MaxLevels)]
    private struct NodePath
    {
        private PageTableNode _element;
    }

    [InlineArray(MaxLevels)]
    private struct SlotSet
    {
        private ulong _element;
    }
}
