using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cairn.Paging;

namespace Cairn.Trees;

/// <summary>
/// Slotted-page primitives shared by leaf and branch pages: a slot array of node offsets grows up
/// from the header, node bytes grow down from the page end. Callers pass pointers they obtained
/// for the current operation and never keep them across a modification of the same page. Primitives that
/// write take a <see cref="WritablePage"/> and record the bytes they touch (the header needs no record: it is
/// always in a dirty page's ranges), including the node bytes a caller is handed to fill.
/// </summary>
internal static unsafe class TreePage
{
    /// <summary>Bytes available for slots and nodes.</summary>
    public const int UsableSpace = StorageConstants.PageSize - PageHeader.Size;

    /// <summary>Largest node a branch page ever holds (separator of the longest key).</summary>
    public const int MaxBranchNodeSize = BranchNodeHeader.Size + StorageConstants.MaxKeySize;

    /// <summary>Largest node a leaf page ever holds.</summary>
    public const int MaxLeafNodeSize = StorageConstants.MaxInlineNodeSize;

    public static void Initialize(WritablePage page, PageFlags flags)
    {
        var header = (PageHeader*)page.Bytes;
        header->Flags = flags;
        header->Lower = PageHeader.Size;
        header->Upper = StorageConstants.PageSize;
    }

    /// <summary>Forgets all nodes but keeps the header identity (number, flags).</summary>
    public static void Clear(WritablePage page)
    {
        var header = (PageHeader*)page.Bytes;
        header->Lower = PageHeader.Size;
        header->Upper = StorageConstants.PageSize;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Count(byte* page) => (((PageHeader*)page)->Lower - PageHeader.Size) >> 1;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsLeaf(byte* page) => (((PageHeader*)page)->Flags & PageFlags.Leaf) != 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsBranch(byte* page) => (((PageHeader*)page)->Flags & PageFlags.Branch) != 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ushort* Slots(byte* page) => (ushort*)(page + PageHeader.Size);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte* Node(byte* page, int index) => page + ((ushort*)(page + PageHeader.Size))[index];

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ContiguousFree(byte* page) => ((PageHeader*)page)->Upper - ((PageHeader*)page)->Lower;

    // ---- leaf nodes ----

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ReadOnlySpan<byte> LeafKey(byte* node) =>
        new(node + LeafNodeHeader.Size, ((LeafNodeHeader*)node)->KeySize);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsOverflow(byte* leafNode) => ((LeafNodeHeader*)leafNode)->Flags == LeafNodeFlags.Overflow;

    /// <summary>Where the inline value or the overflow page number starts.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte* LeafValueStart(byte* leafNode) => leafNode + LeafNodeHeader.Size + ((LeafNodeHeader*)leafNode)->KeySize;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long OverflowPage(byte* leafNode) => Unsafe.ReadUnaligned<long>(LeafValueStart(leafNode));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int LeafNodeSize(byte* node)
    {
        var header = (LeafNodeHeader*)node;
        return LeafNodeHeader.Size + header->KeySize + (header->Flags == LeafNodeFlags.Overflow ? sizeof(long) : header->ValueSize);
    }

    /// <summary>Node size for a new entry; overflow values leave only their page number in the node.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int LeafNodeSize(int keySize, int valueSize, bool overflow) =>
        LeafNodeHeader.Size + keySize + (overflow ? sizeof(long) : valueSize);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool NeedsOverflow(int keySize, int valueSize) =>
        (long)LeafNodeHeader.Size + keySize + valueSize > StorageConstants.MaxInlineNodeSize;

    public static void WriteLeafNode(byte* destination, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long overflowPage, bool overflow)
    {
        var header = (LeafNodeHeader*)destination;
        header->KeySize = (ushort)key.Length;
        header->Flags = overflow ? LeafNodeFlags.Overflow : LeafNodeFlags.Inline;
        header->ValueSize = value.Length;
        byte* keyStart = destination + LeafNodeHeader.Size;
        key.CopyTo(new Span<byte>(keyStart, key.Length));
        if (overflow)
            Unsafe.WriteUnaligned(keyStart + key.Length, overflowPage);
        else
            value.CopyTo(new Span<byte>(keyStart + key.Length, value.Length));
    }

    // ---- branch nodes ----

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ReadOnlySpan<byte> BranchKey(byte* node) =>
        new(node + BranchNodeHeader.Size, ((BranchNodeHeader*)node)->KeySize);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long BranchChild(byte* page, int index) => ((BranchNodeHeader*)Node(page, index))->ChildPage;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int BranchNodeSize(byte* node) => BranchNodeHeader.Size + ((BranchNodeHeader*)node)->KeySize;

    public static void WriteBranchNode(byte* destination, ReadOnlySpan<byte> key, long childPage)
    {
        var header = (BranchNodeHeader*)destination;
        header->KeySize = (ushort)key.Length;
        header->Flags = 0;
        header->ChildPage = childPage;
        key.CopyTo(new Span<byte>(destination + BranchNodeHeader.Size, key.Length));
    }

    // ---- searching ----

    /// <summary>The index of the first key ≥ <paramref name="key"/> (Count if none); <paramref name="found"/> when equal.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int SearchLeaf(byte* page, ReadOnlySpan<byte> key, out bool found)
    {
        ushort* slots = Slots(page);
        int low = 0;
        int high = Count(page) - 1;
        int reach = ProbePrefetch.KeyReach(LeafNodeHeader.Size, key.Length);
        int untilPrefetch = 0;
        while (low <= high)
        {
            if (--untilPrefetch < 0)
            {
                ProbePrefetch.NextLevels(page, slots, low, high, reach);
                untilPrefetch = ProbePrefetch.Levels - 1;
            }
            int middle = (int)((uint)(low + high) >> 1);
            byte* node = page + slots[middle];
            int comparison = CompareKeys(key, node + LeafNodeHeader.Size, ((LeafNodeHeader*)node)->KeySize);
            if (comparison == 0)
            {
                found = true;
                return middle;
            }
            if (comparison > 0)
                low = middle + 1;
            else
                high = middle - 1;
        }
        found = false;
        return low;
    }

    /// <summary>The index of the child whose key range holds <paramref name="key"/>: the last separator ≤ key (node 0 is minus infinity).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int SearchBranch(byte* page, ReadOnlySpan<byte> key)
    {
        ushort* slots = Slots(page);
        int low = 1;
        int high = Count(page) - 1;
        int reach = ProbePrefetch.KeyReach(BranchNodeHeader.Size, key.Length);
        int untilPrefetch = 0;
        while (low <= high)
        {
            if (--untilPrefetch < 0)
            {
                ProbePrefetch.NextLevels(page, slots, low, high, reach);
                untilPrefetch = ProbePrefetch.Levels - 1;
            }
            int middle = (int)((uint)(low + high) >> 1);
            byte* node = page + slots[middle];
            int comparison = CompareKeys(key, node + BranchNodeHeader.Size, ((BranchNodeHeader*)node)->KeySize);
            if (comparison == 0)
                return middle;
            if (comparison > 0)
                low = middle + 1;
            else
                high = middle - 1;
        }
        return low - 1;
    }

    /// <summary>
    /// Byte-wise order of <paramref name="key"/> and the stored key (sign only), 8 bytes at a time as big-endian
    /// numbers: keys are short (16 bytes in the benchmarks), and the general comparison's call and setup were
    /// 7 % of a sequential fill's profile.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int CompareKeys(ReadOnlySpan<byte> key, byte* stored, int storedLength)
    {
        if (!BitConverter.IsLittleEndian) // folded away by the JIT
            return key.SequenceCompareTo(new ReadOnlySpan<byte>(stored, storedLength));
        int common = Math.Min(key.Length, storedLength);
        ref byte left = ref MemoryMarshal.GetReference(key);
        int i = 0;
        for (; i + sizeof(ulong) <= common; i += sizeof(ulong))
        {
            ulong a = BinaryPrimitives.ReverseEndianness(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref left, i)));
            ulong b = BinaryPrimitives.ReverseEndianness(Unsafe.ReadUnaligned<ulong>(stored + i));
            if (a != b)
                return a < b ? -1 : 1;
        }
        for (; i < common; i++)
        {
            int difference = Unsafe.Add(ref left, i) - stored[i];
            if (difference != 0)
                return difference;
        }
        return key.Length - storedLength;
    }

    // ---- space management ----

    /// <summary>Slot and node bytes in use (holes left by deletions excluded).</summary>
    public static int UsedBytes(byte* page)
    {
        int count = Count(page);
        int used = count * sizeof(ushort);
        bool leaf = IsLeaf(page);
        ushort* slots = Slots(page);
        for (int i = 0; i < count; i++)
        {
            byte* node = page + slots[i];
            used += leaf ? LeafNodeSize(node) : BranchNodeSize(node);
        }
        return used;
    }

    /// <summary>
    /// Opens slot <paramref name="index"/> for a node of <paramref name="nodeSize"/> bytes and returns where
    /// to write it. The caller has checked that <see cref="ContiguousFree"/> covers the node and its slot.
    /// </summary>
    public static byte* InsertSlot(WritablePage page, int index, int nodeSize)
    {
        var header = (PageHeader*)page.Bytes;
        int count = Count(page);
        ushort* slots = Slots(page);
        if (index < count)
            Buffer.MemoryCopy(slots + index, slots + index + 1, (count - index) * sizeof(ushort), (count - index) * sizeof(ushort));
        header->Upper = (ushort)(header->Upper - nodeSize);
        slots[index] = header->Upper;
        header->Lower += sizeof(ushort);
        page.WroteRange(PageHeader.Size + index * sizeof(ushort), header->Lower);
        page.WroteRange(header->Upper, header->Upper + nodeSize);
        return page.Bytes + header->Upper;
    }

    /// <summary>Appends a copy of a node after the last slot; space is the caller's concern.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte* AppendSlot(WritablePage page, int nodeSize)
    {
        var header = (PageHeader*)page.Bytes;
        header->Upper = (ushort)(header->Upper - nodeSize);
        *(ushort*)(page.Bytes + header->Lower) = header->Upper;
        header->Lower += sizeof(ushort);
        page.WroteRange(header->Lower - sizeof(ushort), header->Lower);
        page.WroteRange(header->Upper, header->Upper + nodeSize);
        return page.Bytes + header->Upper;
    }

    /// <summary>
    /// Drops slot <paramref name="index"/>. The node's bytes become a hole unless they sit at Upper,
    /// where they are reclaimed at once; holes are reclaimed by <see cref="Compact"/>.
    /// </summary>
    public static void RemoveSlot(WritablePage page, int index, int nodeSize)
    {
        var header = (PageHeader*)page.Bytes;
        int count = Count(page);
        ushort* slots = Slots(page);
        if (slots[index] == header->Upper)
            header->Upper = (ushort)(header->Upper + nodeSize);
        int after = count - index - 1;
        if (after > 0)
        {
            Buffer.MemoryCopy(slots + index + 1, slots + index, after * sizeof(ushort), after * sizeof(ushort));
            page.Wrote((byte*)(slots + index), after * sizeof(ushort));
        }
        header->Lower -= sizeof(ushort);
    }

    /// <summary>Rewrites the nodes contiguously against the page end so all free bytes lie between Lower and Upper.</summary>
    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Compact(WritablePage page)
    {
        byte* copy = stackalloc byte[StorageConstants.PageSize];
        var header = (PageHeader*)page.Bytes;
        int upper = header->Upper;
        Buffer.MemoryCopy(page.Bytes + upper, copy + upper, StorageConstants.PageSize - upper, StorageConstants.PageSize - upper);
        int count = Count(page);
        bool leaf = IsLeaf(page);
        ushort* slots = Slots(page);
        int top = StorageConstants.PageSize;
        for (int i = 0; i < count; i++)
        {
            byte* node = copy + slots[i];
            int size = leaf ? LeafNodeSize(node) : BranchNodeSize(node);
            top -= size;
            Buffer.MemoryCopy(node, page.Bytes + top, size, size);
            slots[i] = (ushort)top;
        }
        header->Upper = (ushort)top;
        page.WroteRange(PageHeader.Size, header->Lower);
        page.WroteRange(top, StorageConstants.PageSize);
    }

    /// <summary>Makes <paramref name="bytes"/> contiguous free bytes if the page has that many at all.</summary>
    public static bool TryReserve(WritablePage page, int bytes)
    {
        if (ContiguousFree(page) >= bytes)
            return true;
        if (UsableSpace - UsedBytes(page) < bytes)
            return false;
        Compact(page);
        return true;
    }
}
