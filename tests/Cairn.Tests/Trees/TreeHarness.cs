using System.Buffers.Binary;
using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Tests.Trees;

internal sealed class ByteArrayComparer : IComparer<byte[]>
{
    public static readonly ByteArrayComparer Instance = new();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}

/// <summary>Counts what <see cref="BTree.Verify"/> reports and rejects a page reported twice.</summary>
internal sealed class CountingSink : ITreeVerificationSink
{
    private readonly HashSet<long> _pages = [];

    public long Branch { get; private set; }
    public long Leaf { get; private set; }
    public long Overflow { get; private set; }
    public long Total => Branch + Leaf + Overflow;

    public void OnPages(long firstPage, int count, TreePageKind kind)
    {
        for (long p = firstPage; p < firstPage + count; p++)
            Assert.True(_pages.Add(p), $"page {p} reported twice");
        switch (kind)
        {
            case TreePageKind.Branch: Branch += count; break;
            case TreePageKind.Leaf: Leaf += count; break;
            default: Overflow += count; break;
        }
    }
}

/// <summary>A tree over a <see cref="MemoryPageAccess"/> next to a sorted-dictionary model of its contents.</summary>
internal sealed class TreeHarness : IDisposable
{
    public TreeHarness(int capacity = 1024)
    {
        Pages = new MemoryPageAccess(capacity);
        Tree = new BTree(Pages, BTree.CreateEmpty(Pages));
    }

    public MemoryPageAccess Pages { get; }
    public BTree Tree { get; }
    public SortedDictionary<byte[], byte[]> Model { get; } = new(ByteArrayComparer.Instance);

    public void Put(byte[] key, byte[] value)
    {
        Tree.Put(key, value);
        Model[key] = value;
    }

    /// <summary>Appends through <see cref="BTree.Append"/> (tree name "appended") and records the entry in the model.</summary>
    public void Append(byte[] key, byte[] value)
    {
        Tree.Append(key, value, "appended");
        Model[key] = value;
    }

    public bool Delete(byte[] key)
    {
        bool removed = Tree.Delete(key);
        Assert.Equal(Model.Remove(key), removed);
        return removed;
    }

    /// <summary>Verification, both iteration directions, point reads, and page accounting against the fake.</summary>
    public void CheckAll()
    {
        var sink = new CountingSink();
        Tree.Verify(sink);
        TreeState state = Tree.State;
        Assert.Equal(Model.Count, state.EntryCount);
        Assert.Equal(state.BranchPages, sink.Branch);
        Assert.Equal(state.LeafPages, sink.Leaf);
        Assert.Equal(state.OverflowPages, sink.Overflow);
        Assert.Equal(Pages.AllocatedPageCount, state.BranchPages + state.LeafPages + state.OverflowPages);

        var cursor = new BTreeCursor(Tree);
        using (var expected = Model.GetEnumerator())
        {
            bool more = cursor.First();
            while (expected.MoveNext())
            {
                Assert.True(more, "the cursor ended early");
                AssertEntry(expected.Current, cursor);
                more = cursor.MoveNext();
            }
            Assert.False(more, "the cursor has more entries than the model");
        }
        using (var expected = Model.Reverse().GetEnumerator())
        {
            bool more = cursor.Last();
            while (expected.MoveNext())
            {
                Assert.True(more, "the reverse cursor ended early");
                AssertEntry(expected.Current, cursor);
                more = cursor.MovePrevious();
            }
            Assert.False(more, "the reverse cursor has more entries than the model");
        }
        foreach (var (key, value) in Model)
        {
            Assert.True(Tree.TryGet(key, out ReadOnlySpan<byte> found));
            Assert.True(found.SequenceEqual(value));
        }
    }

    public static void AssertEntry(KeyValuePair<byte[], byte[]> expected, BTreeCursor cursor)
    {
        Assert.True(cursor.Key.SequenceEqual(expected.Key), $"key {Hex(cursor.Key)} where {Hex(expected.Key)} was expected");
        Assert.True(cursor.Value.SequenceEqual(expected.Value), $"value of {Hex(expected.Key)} differs ({cursor.Value.Length} bytes, expected {expected.Value.Length})");
    }

    public static string Hex(ReadOnlySpan<byte> bytes) =>
        bytes.Length <= 16 ? Convert.ToHexString(bytes) : $"{Convert.ToHexString(bytes[..16])}…({bytes.Length} bytes)";

    public static byte[] Key(int i)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        return key;
    }

    /// <summary>A 1,500-byte key ordered by <paramref name="i"/>: five fit a page, so a few hundred make branch pages split and merge.</summary>
    public static byte[] LongKey(int i)
    {
        var key = new byte[1500];
        key.AsSpan().Fill(0x55);
        BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(1496), i);
        return key;
    }

    public static byte[] Value(int seed, int length)
    {
        var value = new byte[length];
        for (int i = 0; i < length; i++)
            value[i] = (byte)(seed * 31 + i * 7 + (i >> 8));
        return value;
    }

    public void Dispose() => Pages.Dispose();
}
