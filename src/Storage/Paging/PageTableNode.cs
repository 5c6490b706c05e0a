using System.Runtime.CompilerServices;

namespace Cairn.Paging;

/// <summary>
/// One node of the <see cref="PageTable"/> trie: 64 slots, one per 6-bit digit of the page number,
/// stored packed — <see cref="Bitmap"/> says which slots are used, and an entry's position in
/// <see cref="Items"/> is the number of used slots before it. Packing keeps memory proportional to
/// the entries even when modified pages are scattered over a large file, and copying a node on a
/// commit's path costs only its entries.
/// <para>
/// A node is a value, not an object: the bitmap travels with the array reference inside the
/// parent's slot, so each level of a lookup is one load of a 16-byte slot rather than a load of a
/// node object followed by a load of its array.
/// </para>
/// </summary>
internal struct PageTableNode
{
    public const int SlotBits = 6;
    public const int SlotMask = (1 << SlotBits) - 1;

    /// <summary>Bit i set: slot i holds an entry. 0 for the empty node.</summary>
    public ulong Bitmap;

    /// <summary>
    /// A branch's <c>PageTableNode[]</c> or a leaf's <c>PageVersion[]</c> (which one follows from the
    /// depth, so lookups never test it); null for the empty node. Element 0 is a header naming the
    /// builder session that owns the array (<see cref="NodeArrays"/>); entries follow in slot order,
    /// and the array may be longer than they need.
    /// </summary>
    public object? Items;

    public readonly int Count => System.Numerics.BitOperations.PopCount(Bitmap);

    /// <summary>Where slot <paramref name="slotBit"/>'s entry is, or would go, among the entries (header not counted).</summary>
    public readonly int IndexOf(ulong slotBit) => System.Numerics.BitOperations.PopCount(Bitmap & (slotBit - 1));

    public readonly PageTableNode[] Children => Unsafe.As<PageTableNode[]>(Items!);

    public readonly PageVersion[] Versions => Unsafe.As<PageVersion[]>(Items!);
}
