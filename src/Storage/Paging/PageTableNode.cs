using System.Numerics;

namespace Cairn.Paging;

/// <summary>
/// One node of the <see cref="PageTable"/> trie: 64 slots, one per 6-bit digit of the page number,
/// stored packed — a bitmap says which slots are used and an entry's position in the array is the
/// number of used slots before it. Packing keeps memory proportional to the entries even when the
/// modified pages are scattered over a large file, and copying a node on a commit's path costs
/// only its entries. A node is a branch (<see cref="Children"/>) or a leaf (<see cref="Versions"/>);
/// which one follows from its depth, so lookups never test it.
/// </summary>
internal sealed class PageTableNode
{
    public const int SlotBits = 6;
    public const int SlotMask = (1 << SlotBits) - 1;

    /// <summary>Bit i set: slot i holds an entry.</summary>
    public ulong Bitmap;

    /// <summary>
    /// The builder session allowed to change this node in place; every other one copies it first.
    /// Builders start a new session whenever they publish, so published nodes are never written again.
    /// </summary>
    public object? Owner;

    /// <summary>Branch nodes: the children in slot order; the array may be longer than the count.</summary>
    public PageTableNode[]? Children;

    /// <summary>Leaf nodes: the versions in slot order; the array may be longer than the count.</summary>
    public PageVersion[]? Versions;

    public int Count => BitOperations.PopCount(Bitmap);

    /// <summary>Where slot <paramref name="slotBit"/>'s entry is, or would go, in the packed array.</summary>
    public int IndexOf(ulong slotBit) => BitOperations.PopCount(Bitmap & (slotBit - 1));

    public static PageTableNode NewLeaf(object owner, int slot, PageVersion version)
        => new() { Owner = owner, Bitmap = 1UL << slot, Versions = [version] };

    public static PageTableNode NewBranch(object owner, int slot, PageTableNode child)
        => new() { Owner = owner, Bitmap = 1UL << slot, Children = [child] };

    public PageTableNode WithVersion(object owner, int index, PageVersion version)
    {
        PageTableNode node = OwnedBy(owner);
        node.Versions![index] = version;
        return node;
    }

    public PageTableNode WithChild(object owner, int index, PageTableNode child)
    {
        PageTableNode node = OwnedBy(owner);
        node.Children![index] = child;
        return node;
    }

    public PageTableNode WithVersionInserted(object owner, ulong slotBit, int index, PageVersion version)
    {
        if (Owner == owner)
        {
            Versions = PackedArray.Insert(Versions!, Count, index, version);
            Bitmap |= slotBit;
            return this;
        }
        return new() { Owner = owner, Bitmap = Bitmap | slotBit, Versions = PackedArray.CopyWithInsert(Versions!, Count, index, version) };
    }

    public PageTableNode WithChildInserted(object owner, ulong slotBit, int index, PageTableNode child)
    {
        if (Owner == owner)
        {
            Children = PackedArray.Insert(Children!, Count, index, child);
            Bitmap |= slotBit;
            return this;
        }
        return new() { Owner = owner, Bitmap = Bitmap | slotBit, Children = PackedArray.CopyWithInsert(Children!, Count, index, child) };
    }

    public PageTableNode WithSlotRemoved(object owner, ulong slotBit, int index)
    {
        int count = Count;
        if (Owner == owner)
        {
            if (Children is not null)
                PackedArray.RemoveInPlace(Children, count, index);
            else
                PackedArray.RemoveInPlace(Versions!, count, index);
            Bitmap &= ~slotBit;
            return this;
        }
        return Children is not null
            ? new() { Owner = owner, Bitmap = Bitmap & ~slotBit, Children = PackedArray.CopyWithout(Children, count, index) }
            : new() { Owner = owner, Bitmap = Bitmap & ~slotBit, Versions = PackedArray.CopyWithout(Versions!, count, index) };
    }

    private PageTableNode OwnedBy(object owner)
    {
        if (Owner == owner)
            return this;
        int count = Count;
        return new()
        {
            Owner = owner,
            Bitmap = Bitmap,
            Children = Children is null ? null : Children.AsSpan(0, count).ToArray(),
            Versions = Versions is null ? null : Versions.AsSpan(0, count).ToArray(),
        };
    }
}
