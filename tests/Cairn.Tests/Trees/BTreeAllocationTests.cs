using Cairn.Trees;

namespace Cairn.Tests.Trees;

/// <summary>The hot paths allocate nothing on the managed heap once warm.</summary>
public class BTreeAllocationTests
{
    private const int Count = 20_000;

    private static (TreeHarness Harness, byte[][] Keys) Build(int capacity = 16_384)
    {
        var h = new TreeHarness(capacity);
        var keys = new byte[Count][];
        for (int i = 0; i < Count; i++)
        {
            keys[i] = TreeHarness.Key(i * 2);
            h.Tree.Put(keys[i], TreeHarness.Value(i, i % 500 == 0 ? 10_000 : 24));
        }
        h.Pages.Commit();
        return (h, keys);
    }

    [Fact]
    public void TryGet_allocates_nothing()
    {
        var (h, keys) = Build();
        using var _ = h;
        long total = 0;
        foreach (byte[] key in keys)
            total += h.Tree.TryGet(key, out var value) ? value.Length : 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int round = 0; round < 3; round++)
        {
            foreach (byte[] key in keys)
                total += h.Tree.TryGet(key, out var value) ? value.Length : 0;
        }
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.True(total > 0);
    }

    [Fact]
    public void Replacing_values_of_the_same_size_allocates_nothing()
    {
        var (h, keys) = Build();
        using var _ = h;
        byte[] value = TreeHarness.Value(9, 24);
        for (int i = 0; i < 1000; i++)
            h.Tree.Put(keys[i], value);
        h.Pages.Commit();
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 1; i < Count; i += 3)
        {
            if (i % 500 != 0)
                h.Tree.Put(keys[i], value);
        }
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        h.Tree.Verify();
    }

    [Fact]
    public void Inserts_and_deletes_in_a_warm_tree_allocate_nothing()
    {
        var (h, _) = Build();
        using var _h = h;
        var random = new Random(1);
        byte[][] inserts = Enumerable.Range(0, Count).Select(i => TreeHarness.Key(i * 2 + 1)).OrderBy(_ => random.Next()).ToArray();
        byte[] small = TreeHarness.Value(1, 24);
        byte[] large = TreeHarness.Value(2, 6000);
        // Warm every path (splits at both levels, overflow writes) on the first half.
        for (int i = 0; i < Count / 2; i++)
            h.Tree.Put(inserts[i], i % 100 == 0 ? large : small);

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = Count / 2; i < Count; i++)
            h.Tree.Put(inserts[i], i % 100 == 0 ? large : small);
        for (int i = 0; i < Count; i += 2)
            h.Tree.Delete(inserts[i]);
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        h.Tree.Verify();
    }

    [Fact]
    public void Cursor_steps_allocate_nothing()
    {
        var (h, keys) = Build();
        using var _ = h;
        var cursor = new BTreeCursor(h.Tree);
        long total = 0;
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            total += cursor.Key.Length + cursor.Value.Length;

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            total += cursor.Key.Length + cursor.Value.Length;
        for (bool more = cursor.Last(); more; more = cursor.MovePrevious())
            total += cursor.Key.Length;
        for (int i = 0; i < Count; i += 100)
            total += cursor.Seek(keys[i]) ? cursor.Key.Length : 0;
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.True(total > 0);
    }
}
