using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// <see cref="ReadTransaction"/>, <see cref="WriteTransaction"/> and <see cref="ReadSnapshot"/> share one read
/// contract (<see cref="IReadTransaction"/>), and a <c>default(Tree)</c> says where a tree comes from.
/// </summary>
public sealed class ReadContractTests : IDisposable
{
    private readonly TestDirectory _dir = new("read-contract");
    private readonly StorageEnvironment _env;

    public ReadContractTests()
    {
        _env = StorageEnvironment.Open(new StorageOptions(_dir.Path));
        using var tx = _env.BeginWrite();
        tx.CreateTree("a").Put("k"u8, "v"u8);
        tx.CreateTree("b");
        tx.Commit();
    }

    public void Dispose()
    {
        _env.Dispose();
        _dir.Dispose();
    }

    [Fact]
    public void Every_kind_of_read_answers_the_same_through_the_shared_contract()
    {
        var handle = _env.GetTreeHandle("a");
        using (var snapshot = _env.BeginReadSnapshot())
            AssertReads(snapshot, handle, _env.LastCommittedTransactionId);
        using (var read = _env.BeginRead())
            AssertReads(read, handle, _env.LastCommittedTransactionId);
        using (var write = _env.BeginWrite())
            AssertReads(write, handle, _env.LastCommittedTransactionId);
        IReadTransaction boxed = _env.BeginReadSnapshot();
        AssertReads(boxed, handle, _env.LastCommittedTransactionId);
        boxed.Dispose();
        Assert.True(boxed.IsDisposed);
    }

    [Fact]
    public void A_default_tree_throws_naming_where_trees_come_from()
    {
        Tree none = default;
        foreach (var use in new Action[] { () => _ = none.Name, () => _ = none.Count, () => none.Get("k"u8), () => none.CreateCursor(), () => none.Put("k"u8, "v"u8) })
        {
            var thrown = Assert.Throws<InvalidOperationException>(use);
            Assert.Contains("ReadTransaction.OpenTree", thrown.Message);
            Assert.Contains("WriteTransaction.CreateTree", thrown.Message);
        }
    }

    // Generic, so a ReadSnapshot is not boxed (AllocationTests measures that it allocates nothing).
    private static void AssertReads<TRead>(TRead read, TreeHandle handle, long transactionId) where TRead : IReadTransaction
    {
        Assert.False(read.IsDisposed);
        Assert.Equal(transactionId, read.TransactionId);
        Assert.Equal(["a", "b"], read.GetTreeNames());
        Assert.Equal("v"u8.ToArray(), read.OpenTree("a").Get("k"u8));
        Assert.Equal(1, read.OpenTree(handle).Count);
        Assert.True(read.TryOpenTree("b", out var b));
        Assert.Equal(0, b.Count);
        Assert.False(read.TryOpenTree("absent", out _));
        Assert.Throws<TreeNotFoundException>(() => read.OpenTree("absent"));
    }
}
