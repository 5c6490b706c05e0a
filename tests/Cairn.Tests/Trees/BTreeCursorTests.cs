using Cairn.Trees;

namespace Cairn.Tests.Trees;

/// <summary>Cursor positioning, stepping, and staying correct while the tree changes under it.</summary>
public class BTreeCursorTests
{
    private static TreeHarness Filled(int count, int step = 1, int valueSize = 40)
    {
        var h = new TreeHarness();
        for (int i = 0; i < count; i++)
            h.Put(TreeHarness.Key(i * step), TreeHarness.Value(i, i % 97 == 0 ? 5000 : valueSize));
        return h;
    }

    [Fact]
    public void Seek_finds_the_first_key_at_or_after_the_target()
    {
        using var h = Filled(3000, step: 10);
        var cursor = new BTreeCursor(h.Tree);
        Assert.True(cursor.Seek(TreeHarness.Key(500)));
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(500)));
        Assert.True(cursor.Seek(TreeHarness.Key(501)));
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(510)));
        Assert.True(cursor.Seek([0]));
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(0)));
        Assert.False(cursor.Seek(TreeHarness.Key(29_991)));
        Assert.False(cursor.IsPositioned);
        Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
        Assert.False(cursor.MoveNext());
        Assert.False(cursor.MovePrevious());
    }

    [Fact]
    public void Stepping_off_either_end_unpositions_the_cursor()
    {
        using var h = Filled(1000);
        var cursor = new BTreeCursor(h.Tree);
        Assert.True(cursor.Last());
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(999)));
        Assert.False(cursor.MoveNext());
        Assert.False(cursor.IsPositioned);
        Assert.True(cursor.First());
        Assert.False(cursor.MovePrevious());
        Assert.False(cursor.IsPositioned);
    }

    [Fact]
    public void Forward_iteration_deleting_every_visited_key_and_the_one_after_it()
    {
        using var h = Filled(4000);
        var cursor = new BTreeCursor(h.Tree);
        var visited = new List<int>();
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
        {
            byte[] key = cursor.Key.ToArray();
            visited.Add(ToInt(key));
            h.Delete(key);
            byte[]? next = h.Model.Keys.FirstOrDefault(k => ByteArrayComparer.Instance.Compare(k, key) > 0);
            if (next != null)
                h.Delete(next);
        }
        Assert.Equal(Enumerable.Range(0, 2000).Select(i => 2 * i), visited);
        h.CheckAll();
        Assert.Equal(0, h.Tree.State.EntryCount);
    }

    [Fact]
    public void Forward_iteration_deleting_every_other_visited_key()
    {
        using var h = Filled(4000);
        var cursor = new BTreeCursor(h.Tree);
        var visited = new List<int>();
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
        {
            int i = ToInt(cursor.Key);
            // Read before deleting: after a change, Key/Value would move the cursor on to the next key.
            Assert.True(cursor.Value.SequenceEqual(TreeHarness.Value(i, i % 97 == 0 ? 5000 : 40)));
            visited.Add(i);
            if (i % 2 == 0)
                h.Delete(TreeHarness.Key(i));
        }
        Assert.Equal(Enumerable.Range(0, 4000), visited);
        h.CheckAll();
        Assert.Equal(2000, h.Tree.State.EntryCount);
    }

    /// <summary>
    /// Walks backward from the end; at each key inserts one key just below it (visited next), one just
    /// above it (already passed, never visited) and a few elsewhere, so pages split under the cursor.
    /// </summary>
    [Fact]
    public void Backward_iteration_while_inserting_matches_the_model()
    {
        using var h = Filled(1500, step: 100);
        var cursor = new BTreeCursor(h.Tree);
        var random = new Random(5);
        var visited = new List<int>();
        var expected = new List<int>();
        int? saved = null;
        for (bool more = cursor.Last(); more; more = cursor.MovePrevious())
        {
            int current = ToInt(cursor.Key);
            // What the model says MovePrevious should have reached: the last key below the previous one.
            if (saved is int s)
                expected.Add(ToInt(h.Model.Keys.Last(k => ToInt(k) < s)));
            else
                expected.Add(ToInt(h.Model.Keys.Last()));
            visited.Add(current);
            saved = current;

            if (current % 100 == 0 && current > 0)
                h.Put(TreeHarness.Key(current - 50), TreeHarness.Value(current, 300));
            h.Put(TreeHarness.Key(current + 1), TreeHarness.Value(current, 20));
            for (int j = 0; j < 3; j++)
            {
                int k = random.Next(150_000) * 10 + 7;
                h.Put(TreeHarness.Key(k), TreeHarness.Value(k, random.Next(10, 900)));
            }
            Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(current)), "the cursor moved away from its key after inserts");
        }
        Assert.Equal(expected, visited);
        Assert.Contains(50, visited);
        h.CheckAll();
    }

    [Fact]
    public void Key_and_value_after_a_change_follow_the_saved_key()
    {
        using var h = Filled(2000, step: 2);
        var cursor = new BTreeCursor(h.Tree);
        Assert.True(cursor.Seek(TreeHarness.Key(1000)));

        // Splits around the cursor's leaf and a new value for its own key.
        for (int i = 1; i < 1100; i += 2)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 200));
        h.Put(TreeHarness.Key(1000), TreeHarness.Value(77, 9000));
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(1000)));
        Assert.True(cursor.Value.SequenceEqual(TreeHarness.Value(77, 9000)));

        h.Delete(TreeHarness.Key(1000));
        Assert.True(cursor.IsPositioned);
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(1001)));
        Assert.True(cursor.MovePrevious());
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(999)));

        foreach (byte[] key in h.Model.Keys.Where(k => ToInt(k) >= 999).ToList())
            h.Delete(key);
        Assert.False(cursor.IsPositioned);
        Assert.False(cursor.MoveNext());
        Assert.True(cursor.Last());
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(998)));
        h.CheckAll();
    }

    [Fact]
    public void Reset_rebinds_a_cursor_to_another_tree()
    {
        using var a = Filled(10);
        using var b = Filled(20);
        var cursor = new BTreeCursor(a.Tree);
        Assert.True(cursor.Last());
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(9)));
        cursor.Reset(b.Tree);
        Assert.False(cursor.IsPositioned);
        Assert.True(cursor.Last());
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(19)));
    }

    [Fact]
    public void A_cursor_over_a_read_only_tree_steps_both_ways_through_every_key_across_leaves()
    {
        using var h = Filled(5000);
        h.Pages.IsWritable = false;
        var cursor = new BTreeCursor(h.Tree);
        var forward = new List<byte[]>();
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            forward.Add(cursor.Key.ToArray());
        var backward = new List<byte[]>();
        for (bool more = cursor.Last(); more; more = cursor.MovePrevious())
            backward.Add(cursor.Key.ToArray());
        backward.Reverse();
        Assert.Equal(h.Model.Keys.Select(Convert.ToHexString), forward.Select(Convert.ToHexString));
        Assert.Equal(h.Model.Keys.Select(Convert.ToHexString), backward.Select(Convert.ToHexString));
        Assert.True(h.Tree.State.LeafPages > 10);
    }

    [Fact]
    public void A_read_only_trees_cursor_keeps_no_key_so_it_refuses_to_step_across_a_repoint()
    {
        // A read-only tree changes version only when its pooled read context re-points it at the next transaction's
        // snapshot; its cursor keeps no key to find its place with, so a step across that is refused, not guessed.
        using var h = Filled(300);
        h.Pages.IsWritable = false;
        var snapshot = new BTree(h.Pages, h.Tree.State);
        var cursor = new BTreeCursor(snapshot);
        Assert.True(cursor.Seek(TreeHarness.Key(100)));
        snapshot.Repoint(h.Tree.State);
        Assert.Throws<InvalidOperationException>(() => cursor.MoveNext());
        Assert.True(cursor.Seek(TreeHarness.Key(100))); // positioning afresh needs no kept key
        Assert.True(cursor.MoveNext());
        Assert.True(cursor.Key.SequenceEqual(TreeHarness.Key(101)));
    }

    private static int ToInt(ReadOnlySpan<byte> key) => System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(key);
}
