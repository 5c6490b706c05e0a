using System.Runtime.InteropServices;
using Cairn.Paging;
using Cairn.Trees;
using Cairn.Tests.Support;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Journal;

public enum BaseKind { Zeros, Random, Leaf, Sparse, Overflow }

public enum ChangeKind { None, Flips, Insert, Shift, ZeroRange, Rewrite, LeafInsert, LeafDelete, LeafCompact }

/// <summary>
/// A generated page run: what it held before (its kind), how the transaction changed it, and
/// whether the transaction allocated it (no previous version). Materialised deterministically from
/// <see cref="Seed"/>, so FsCheck can print and shrink cases.
/// </summary>
public sealed record PageCase(int PageCount, bool IsNew, BaseKind Base, ChangeKind Change, int Seed, int Amount)
{
    public static readonly Gen<PageCase> Gen =
        FsCheck.Fluent.Gen.Frequency((8, FsCheck.Fluent.Gen.Constant(1)), (2, FsCheck.Fluent.Gen.Choose(2, 5))).SelectMany(count =>
        FsCheck.Fluent.Gen.Frequency((3, FsCheck.Fluent.Gen.Constant(false)), (1, FsCheck.Fluent.Gen.Constant(true))).SelectMany(isNew =>
        FsCheck.Fluent.Gen.Elements(Enum.GetValues<BaseKind>()).SelectMany(b =>
        FsCheck.Fluent.Gen.Elements(Enum.GetValues<ChangeKind>()).SelectMany(c =>
        FsCheck.Fluent.Gen.Choose(0, int.MaxValue).SelectMany(seed =>
        FsCheck.Fluent.Gen.Frequency((3, FsCheck.Fluent.Gen.Choose(1, 8)), (2, FsCheck.Fluent.Gen.Choose(1, 600))).Select(amount =>
            new PageCase(count, isNew, b, c, seed, amount)))))));

    public PageChange Materialize(long pageNumber)
    {
        var random = new Random(Seed);
        var before = PageImages.Base(Base, PageCount, pageNumber, random);
        var after = PageImages.Changed(before, Change, Amount, random);
        return new PageChange(pageNumber, PageCount, IsNew ? null : before, after);
    }

    /// <summary>Page numbers far enough apart for runs of up to 8 pages, starting above the header pages.</summary>
    public static PageChange[] MaterializeAll(IReadOnlyList<PageCase> cases)
        => cases.Select((c, i) => c.Materialize(10 + 8L * i)).ToArray();

    public static long NextPageNumber(int caseCount) => 10 + 8L * caseCount + 8;
}

/// <summary>Page images like the engine's: leaves built with the real slotted-page primitives, overflow runs, noise.</summary>
public static unsafe class PageImages
{
    private const int PageSize = StorageConstants.PageSize;

    public static byte[] Base(BaseKind kind, int pageCount, long pageNumber, Random random)
    {
        var page = new byte[pageCount * PageSize];
        switch (kind)
        {
            case BaseKind.Random:
                random.NextBytes(page);
                break;
            case BaseKind.Sparse:
                for (int i = random.Next(1, 6); i > 0; i--)
                {
                    int length = random.Next(1, 300);
                    random.NextBytes(page.AsSpan(random.Next(0, page.Length - length), length));
                }
                break;
            case BaseKind.Leaf:
                FillLeaf(page, pageNumber, random, random.Next(5, 101) / 100.0);
                break;
            case BaseKind.Overflow:
            {
                int valueSize = random.Next(Math.Max(1, page.Length - PageSize - PageHeader.Size + 1), page.Length - PageHeader.Size + 1);
                fixed (byte* p = page)
                {
                    var header = (PageHeader*)p;
                    header->PageNumber = pageNumber;
                    header->Checksum = (ulong)random.NextInt64();
                    header->Flags = PageFlags.Overflow;
                    header->OverflowSize = valueSize;
                }
                random.NextBytes(page.AsSpan(PageHeader.Size, valueSize));
                break;
            }
        }
        return page;
    }

    /// <summary>A leaf of 16-byte random keys and 100-byte values, inserted in random order, filled to about <paramref name="fill"/>.</summary>
    public static void FillLeaf(byte[] page, long pageNumber, Random random, double fill)
    {
        fixed (byte* p = page)
        {
            ((PageHeader*)p)->PageNumber = pageNumber;
            TreePage.Initialize(LoosePage.Of(p), PageFlags.Leaf);
            while (TreePage.UsableSpace - TreePage.UsedBytes(p) > (1 - fill) * TreePage.UsableSpace + 130)
            {
                if (!InsertRandomNode(p, random, 16, 100))
                    break;
            }
            ((PageHeader*)p)->Checksum = (ulong)random.NextInt64();
        }
    }

    public static byte[] Changed(byte[] before, ChangeKind change, int amount, Random random)
    {
        var page = (byte[])before.Clone();
        bool leaf = IsSaneLeaf(page);
        switch (change)
        {
            case ChangeKind.None:
                break;
            case ChangeKind.Flips:
                for (int i = 0; i < Math.Min(amount, 40); i++)
                    page[random.Next(page.Length)] ^= (byte)random.Next(1, 256);
                break;
            case ChangeKind.Insert:
            {
                int at = random.Next(page.Length);
                int length = Math.Min(amount, page.Length - at);
                page.AsSpan(at, page.Length - at - length).CopyTo(page.AsSpan(at + length));
                random.NextBytes(page.AsSpan(at, length));
                break;
            }
            case ChangeKind.Shift:
            {
                int length = random.Next(1, Math.Min(page.Length, 4 * amount + 2));
                int from = random.Next(page.Length - length + 1);
                int to = Math.Clamp(from + random.Next(-amount, amount + 1), 0, page.Length - length);
                page.AsSpan(from, length).CopyTo(page.AsSpan(to));
                break;
            }
            case ChangeKind.ZeroRange:
            {
                int length = Math.Min(amount * 4, page.Length);
                page.AsSpan(random.Next(page.Length - length + 1), length).Clear();
                break;
            }
            case ChangeKind.Rewrite:
                random.NextBytes(page);
                break;
            case ChangeKind.LeafInsert when leaf:
                fixed (byte* p = page)
                {
                    for (int i = 0; i < Math.Min(amount, 6); i++)
                        InsertRandomNode(p, random, 16, 100);
                    ((PageHeader*)p)->Checksum = (ulong)random.NextInt64();
                }
                break;
            case ChangeKind.LeafDelete or ChangeKind.LeafCompact when leaf:
                fixed (byte* p = page)
                {
                    for (int i = 0; i < Math.Min(amount, 6) && TreePage.Count(p) > 0; i++)
                    {
                        int index = random.Next(TreePage.Count(p));
                        TreePage.RemoveSlot(LoosePage.Of(p), index, TreePage.LeafNodeSize(TreePage.Node(p, index)));
                    }
                    if (change == ChangeKind.LeafCompact)
                        TreePage.Compact(LoosePage.Of(p));
                    ((PageHeader*)p)->Checksum = (ulong)random.NextInt64();
                }
                break;
            default: // a leaf change on a page that is not a leaf: a few flips
                page[random.Next(page.Length)] ^= 0x5A;
                break;
        }
        return page;
    }

    /// <summary>Whether the slotted-page primitives can work on the page (earlier random edits may have broken it).</summary>
    public static bool IsSaneLeaf(byte[] page)
    {
        if (page.Length != PageSize)
            return false;
        var header = MemoryMarshal.Read<PageHeader>(page);
        if (header.Flags != PageFlags.Leaf || header.Lower < PageHeader.Size || header.Lower > header.Upper
            || header.Upper > PageSize || (header.Lower - PageHeader.Size) % 2 != 0)
            return false;
        fixed (byte* p = page)
        {
            int used = 0;
            for (int i = 0; i < TreePage.Count(p); i++)
            {
                int slot = TreePage.Slots(p)[i];
                if (slot < header.Upper || slot > PageSize - LeafNodeHeader.Size)
                    return false;
                var node = (LeafNodeHeader*)(p + slot);
                if (node->KeySize > StorageConstants.MaxKeySize || node->Flags != LeafNodeFlags.Inline || node->ValueSize < 0
                    || slot + TreePage.LeafNodeSize(p + slot) > PageSize)
                    return false;
                used += TreePage.LeafNodeSize(p + slot) + 2;
            }
            return used <= TreePage.UsableSpace;
        }
    }

    /// <summary>Inserts a random node at its key's position; false if the page is full.</summary>
    public static bool InsertRandomNode(byte* page, Random random, int keySize, int valueSize)
    {
        Span<byte> key = stackalloc byte[keySize];
        Span<byte> value = stackalloc byte[valueSize];
        random.NextBytes(key);
        random.NextBytes(value);
        int size = TreePage.LeafNodeSize(keySize, valueSize, overflow: false);
        if (!TreePage.TryReserve(LoosePage.Of(page), size + sizeof(ushort)))
            return false;
        int index = TreePage.SearchLeaf(page, key, out bool found);
        if (found)
            return true;
        byte* node = TreePage.InsertSlot(LoosePage.Of(page), index, size);
        TreePage.WriteLeafNode(node, key, value, 0, overflow: false);
        return true;
    }
}
