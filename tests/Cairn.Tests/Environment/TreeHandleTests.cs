using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>Tree handles outlive transactions, follow commits, and never open a tree a snapshot does not have.</summary>
public sealed class TreeHandleTests : IDisposable
{
    private readonly TestDirectory _dir = new("tree-handle");
    private readonly StorageEnvironment _env;

    public TreeHandleTests() => _env = StorageEnvironment.Open(new StorageOptions(_dir.Path));

    public void Dispose()
    {
        _env.Dispose();
        _dir.Dispose();
    }

    [Fact]
    public void The_same_name_gives_the_same_handle_and_it_may_come_before_the_tree()
    {
        var handle = _env.GetTreeHandle("users");
        Assert.Same(handle, _env.GetTreeHandle("users"));
        Assert.Equal("users", handle.Name);
        using (var snapshot = _env.BeginReadSnapshot())
            Assert.Throws<TreeNotFoundException>(() => snapshot.OpenTree(handle));
        Put("users", "alice"u8, "1"u8);
        using var later = _env.BeginReadSnapshot();
        Assert.Equal("1"u8.ToArray(), later.OpenTree(handle).Get("alice"u8));
    }

    [Fact]
    public void A_handle_follows_commits_in_every_kind_of_transaction()
    {
        var handle = _env.GetTreeHandle("t");
        for (int i = 0; i < 5; i++)
        {
            Put("t", "k"u8, [(byte)i]);
            using (var snapshot = _env.BeginReadSnapshot())
                Assert.Equal([(byte)i], snapshot.OpenTree(handle).Get("k"u8)!);
            using (var tx = _env.BeginRead())
                Assert.Equal([(byte)i], tx.OpenTree(handle).Get("k"u8)!);
            // A second transaction on the same snapshot takes the state the handle remembered.
            using (var snapshot = _env.BeginReadSnapshot())
                Assert.Equal(1, snapshot.OpenTree(handle).Count);
        }
        using (var tx = _env.BeginWrite())
        {
            tx.OpenTree(handle).Put("k2"u8, "v"u8);
            Assert.Equal(2, tx.OpenTree("t").Count);
            tx.Commit();
        }
        using var last = _env.BeginReadSnapshot();
        Assert.Equal("v"u8.ToArray(), last.OpenTree(handle).Get("k2"u8));
    }

    [Fact]
    public void A_deleted_tree_is_not_found_through_its_handle_and_an_older_snapshot_still_reads_it()
    {
        var handle = _env.GetTreeHandle("t");
        Put("t", "k"u8, "old"u8);
        using var before = _env.BeginReadSnapshot();
        Assert.Equal("old"u8.ToArray(), before.OpenTree(handle).Get("k"u8));
        using (var tx = _env.BeginWrite())
        {
            Assert.True(tx.DeleteTree("t"));
            Assert.Throws<TreeNotFoundException>(() => tx.OpenTree(handle));
            tx.Commit();
        }
        using (var after = _env.BeginReadSnapshot())
            Assert.Throws<TreeNotFoundException>(() => after.OpenTree(handle));
        using (var tx = _env.BeginRead())
            Assert.False(tx.TryOpenTree(handle, out _));
        Assert.Equal("old"u8.ToArray(), before.OpenTree(handle).Get("k"u8));

        Put("t", "k"u8, "new"u8);
        using var recreated = _env.BeginReadSnapshot();
        Assert.Equal("new"u8.ToArray(), recreated.OpenTree(handle).Get("k"u8));
        Assert.Equal(1, recreated.OpenTree(handle).Count);
    }

    [Fact]
    public void A_write_transaction_sees_trees_it_created_or_deleted_through_a_handle()
    {
        var handle = _env.GetTreeHandle("t");
        Put("other", "x"u8, "y"u8);
        using (var snapshot = _env.BeginReadSnapshot())
            Assert.False(snapshot.TryOpenTree(handle, out _));
        using (var tx = _env.BeginWrite())
        {
            Assert.False(tx.TryOpenTree(handle, out _));
            tx.CreateTree("t").Put("k"u8, "v"u8);
            Assert.Equal("v"u8.ToArray(), tx.OpenTree(handle).Get("k"u8));
            tx.Commit();
        }
        using (var tx = _env.BeginWrite())
        {
            tx.CreateTree("unrelated");
            tx.DeleteTree("t");
            Assert.False(tx.TryOpenTree(handle, out _));
            // Disposed without commit: nothing changed.
        }
        using var last = _env.BeginReadSnapshot();
        Assert.Equal("v"u8.ToArray(), last.OpenTree(handle).Get("k"u8));
    }

    [Fact]
    public async Task A_merged_operation_opens_a_tree_through_a_handle()
    {
        var handle = _env.GetTreeHandle("t");
        Put("t", "k"u8, "1"u8);
        await _env.WriteAsync(handle, static (tx, h) => tx.OpenTree(h).Put("k"u8, "2"u8));
        Assert.Equal("2"u8.ToArray(), _env.Write(handle, static (tx, h) => tx.OpenTree(h).Get("k"u8)));
    }

    [Fact]
    public void A_handle_of_another_environment_is_refused()
    {
        using var otherDir = new TestDirectory("tree-handle-other");
        using var other = StorageEnvironment.Open(new StorageOptions(otherDir.Path));
        var foreign = other.GetTreeHandle("t");
        Put("t", "k"u8, "v"u8);
        using var snapshot = _env.BeginReadSnapshot();
        Assert.Throws<ArgumentException>(() => snapshot.OpenTree(foreign));
    }

    [Fact]
    public void Names_are_checked_as_tree_names_are()
    {
        Assert.Throws<ArgumentException>(() => _env.GetTreeHandle(""));
        Assert.Throws<ArgumentException>(() => _env.GetTreeHandle(new string('x', 513)));
    }

    private void Put(string tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        using var tx = _env.BeginWrite();
        tx.CreateTree(tree).Put(key, value);
        tx.Commit();
    }
}
