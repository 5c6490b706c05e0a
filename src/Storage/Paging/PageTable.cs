using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cairn.Paging;

/// <summary>
/// The newest committed version of every page that is not in the data file yet, published with
/// each environment state. Immutable: a writer derives the next table with <see cref="ToBuilder()"/>,
/// sharing every node it does not change, so a reader keeps a consistent table for as long as it
/// holds the reference. Publish a table to other threads with a volatile write (as the environment
/// state is published): the builder fills its arrays with ordinary stores.
/// <para>
/// A radix trie on the page number, 6 bits per level (<see cref="PageTableNode"/>), as deep as the
/// largest page number needs: 7 levels cover the whole 2^40 range, a 64 GiB file of 8 KiB pages
/// needs 4. Readers call <see cref="TryGet"/> on every tree step, so it is a fixed loop of bitmap
/// tests with no allocation, no locks and no type checks.
/// </para>
/// </summary>
internal sealed partial class PageTable
{
    /// <summary>Page numbers are below this (a 2^40-page file is 8 PiB of 8 KiB pages).</summary>
    public const long PageNumberLimit = 1L << 40;

    /// <summary>Levels needed for <see cref="PageNumberLimit"/>: ceil(40 / 6).</summary>
    internal const int MaxLevels = 7;

    public static PageTable Empty { get; } = new(root: default, rootShift: 0, count: 0);

    private readonly PageTableNode _root;
    /// <summary>How far to shift a page number for the root's slot: 6 × (levels − 1).</summary>
    private readonly int _rootShift;
    /// <summary>
    /// Every page number the trie can hold is below this; 0 when empty. Comparing as unsigned
    /// makes one test reject the empty table, negative numbers and numbers above the root.
    /// </summary>
    private readonly ulong _pageNumberBound;

    private PageTable(PageTableNode root, int rootShift, int count)
    {
        _root = root;
        _rootShift = rootShift;
        _pageNumberBound = root.Items is null ? 0 : BoundFor(rootShift);
        Count = count;
    }

    public int Count { get; }

    public bool TryGet(long pageNumber, out PageVersion version)
    {
        if ((ulong)pageNumber < _pageNumberBound)
            return Find(_root.Bitmap, _root.Items!, _rootShift, pageNumber, out version);
        version = default;
        return false;
    }

    /// <summary>All entries in ascending page-number order (the order the flusher writes in).</summary>
    public Enumerator GetEnumerator() => new(_root, _rootShift);

    /// <summary>
    /// The entries written by <paramref name="transactionId"/> or earlier, ascending by page number:
    /// what a flush may write once no reader needs anything older.
    /// </summary>
    public EntriesUpToTransaction EntriesUpTo(long transactionId) => new(this, transactionId);

    public Builder ToBuilder() => new(this, _root, _rootShift, Count, replaced: null);

    /// <summary>
    /// A builder that adds every array of this table it copies or drops to <paramref name="replaced"/>: once the
    /// table it builds is published and this one's readers are gone, they go back to <see cref="NodeArrayPool"/>
    /// (if the built table is never published, the list is simply dropped).
    /// </summary>
    public Builder ToBuilder(List<object> replaced) => new(this, _root, _rootShift, Count, replaced);

    /// <summary><see cref="ToBuilder(List{object})"/> in <paramref name="reused"/>, started over on this table (see <see cref="Builder.StartOver"/>).</summary>
    public Builder ToBuilder(List<object> replaced, Builder reused)
    {
        reused.StartOver(this, _root, _rootShift, Count, replaced);
        return reused;
    }

    /// <summary>
    /// The walk below the bound check, one slot load per level. Shifting a bitmap left by
    /// 63 − digit (a ulong shift count is taken mod 64, so ~digit does it) leaves the digit's slot in
    /// the sign bit and the used slots before it below: the sign says whether the slot is used, and
    /// the popcount is the entry's array position, the header being element 0. Indexing skips bounds
    /// checks because every array holds at least as many entries as its bitmap has bits.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool Find(ulong bitmap, object items, int shift, long pageNumber, out PageVersion version)
    {
        ulong throughSlot;
        for (; shift != 0; shift -= PageTableNode.SlotBits)
        {
            throughSlot = bitmap << (int)~(pageNumber >> shift);
            if ((long)throughSlot >= 0)
                goto Missing;
            ref PageTableNode child = ref Element(Unsafe.As<PageTableNode[]>(items), throughSlot);
            bitmap = child.Bitmap;
            items = child.Items!;
        }

        throughSlot = bitmap << (int)~pageNumber;
        if ((long)throughSlot < 0)
        {
            version = Element(Unsafe.As<PageVersion[]>(items), throughSlot);
            return true;
        }

    Missing:
        version = default;
        return false;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ref T Element<T>(T[] items, ulong throughSlot)
        => ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(items), (nuint)(uint)BitOperations.PopCount(throughSlot));

    private static ulong BoundFor(int rootShift) => 1UL << (rootShift + PageTableNode.SlotBits);

    /// <summary>The root shift of the shallowest trie that can hold <paramref name="pageNumber"/>.</summary>
    private static int RootShiftFor(long pageNumber)
    {
        int significantBits = 64 - BitOperations.LeadingZeroCount((ulong)pageNumber | 1);
        return (significantBits - 1) / PageTableNode.SlotBits * PageTableNode.SlotBits;
    }
}
