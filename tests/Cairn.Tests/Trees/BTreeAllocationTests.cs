using Cairn.Tests.Support;
using Cairn.Trees;

namespace Cairn.Tests.Trees;

/// <summary>
/// The hot paths allocate nothing on the managed heap once warm. Measured in a test child of its own
/// (<see cref="IsolatedAllocation"/>).
/// </summary>
public class BTreeAllocationTests
{
    private const int Count = 20_000;

    [Fact]
    public void TryGet_allocates_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(TryGetProbe));

    [Fact]
    public void Replacing_values_of_the_same_size_allocates_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(ReplaceProbe));

    [Fact]
    public void Inserts_and_deletes_in_a_warm_tree_allocate_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(InsertDeleteProbe));

    [Fact]
    public void Appends_allocate_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(AppendProbe));

    [Fact]
    public void Cursor_steps_allocate_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(CursorProbe));

    internal static long TryGetProbe()
    {
        var (h, keys) = Build();
        using var _ = h;
        long total = 0;
        foreach (byte[] key in keys)
            total += h.Tree.TryGet(key, out var value) ? value.Length : 0;
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            foreach (byte[] key in keys)
                total += h.Tree.TryGet(key, out var value) ? value.Length : 0;
        });
        Assert.True(total > 0);
        return allocated;
    }

    internal static long ReplaceProbe()
    {
        var (h, keys) = Build();
        using var _ = h;
        byte[] value = TreeHarness.Value(9, 24);
        for (int i = 0; i < 1000; i++)
            h.Tree.Put(keys[i], value);
        h.Pages.Commit();
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            for (int i = 1; i < Count; i += 3)
            {
                if (i % 500 != 0)
                    h.Tree.Put(keys[i], value);
            }
        });
        h.Tree.Verify();
        return allocated;
    }

    /// <summary>Each attempt inserts a new slice of keys (a few large values among them) and deletes as many old ones.</summary>
    internal static long InsertDeleteProbe()
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

        const int slice = Count / 2 / SteadyStateAllocation.Attempts;
        int inserted = Count / 2, deleted = 0;
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            for (int end = inserted + slice; inserted < end; inserted++)
                h.Tree.Put(inserts[inserted], inserted % 100 == 0 ? large : small);
            for (int end = deleted + slice; deleted < end; deleted++)
                Assert.True(h.Tree.Delete(inserts[deleted]));
        });
        h.Tree.Verify();
        return allocated;
    }

    /// <summary>Each attempt appends a new slice of keys above the tree's last (a few large values among them).</summary>
    internal static long AppendProbe()
    {
        var (h, _) = Build();
        using var _h = h;
        byte[][] appends = Enumerable.Range(0, Count).Select(i => TreeHarness.Key(Count * 2 + i)).ToArray();
        byte[] small = TreeHarness.Value(1, 24);
        byte[] large = TreeHarness.Value(2, 6000);
        // Warm every path (appends, append splits at both levels, overflow writes) on the first half.
        for (int i = 0; i < Count / 2; i++)
            h.Tree.Append(appends[i], i % 100 == 0 ? large : small, "appended");

        const int slice = Count / 2 / SteadyStateAllocation.Attempts;
        int appended = Count / 2;
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            for (int end = appended + slice; appended < end; appended++)
                h.Tree.Append(appends[appended], appended % 100 == 0 ? large : small, "appended");
        });
        h.Tree.Verify();
        return allocated;
    }

    internal static long CursorProbe()
    {
        var (h, keys) = Build();
        using var _ = h;
        var cursor = new BTreeCursor(h.Tree);
        long total = 0;
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            total += cursor.Key.Length + cursor.Value.Length;

        long allocated = SteadyStateAllocation.Measure(() =>
        {
            for (bool more = cursor.First(); more; more = cursor.MoveNext())
                total += cursor.Key.Length + cursor.Value.Length;
            for (bool more = cursor.Last(); more; more = cursor.MovePrevious())
                total += cursor.Key.Length;
            for (int i = 0; i < Count; i += 100)
                total += cursor.Seek(keys[i]) ? cursor.Key.Length : 0;
        });
        Assert.True(total > 0);
        return allocated;
    }

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
}
