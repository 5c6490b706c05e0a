using Cairn.Tests.Support;

namespace Cairn.Tests.Merger;

/// <summary>
/// The merger keeps each slot's low-level transaction and read context from one merged transaction to the next
/// (issue 29): a tree an operation kept past its transaction must still fail, not read or write the next one's pages.
/// </summary>
public class MergedContextReuseTests
{
    [Fact]
    public async Task A_tree_kept_past_its_merged_transaction_throws_in_a_later_one_and_changes_nothing()
    {
        using var dir = new TestDirectory("merger-context-reuse");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("a"u8, "1"u8));
        var kept = await env.WriteAsync(0, static (tx, _) => tx.OpenTree("t"));

        // Each awaited operation is a transaction of its own, on one of the merger's two reused contexts: run
        // enough that the kept tree's context has served later transactions.
        for (int i = 0; i < 4; i++)
        {
            var error = await env.WriteAsync(kept, static (tx, old) =>
            {
                tx.OpenTree("t").Put("b"u8, "2"u8);
                try
                {
                    old.Put("c"u8, "3"u8);
                    return null;
                }
                catch (ObjectDisposedException e)
                {
                    return e;
                }
            });
            Assert.NotNull(error);
        }
        using var snapshot = env.BeginReadSnapshot();
        var tree = snapshot.OpenTree("t");
        Assert.True(tree.TryGet("b"u8, out _));
        Assert.False(tree.TryGet("c"u8, out _));
    }

    [Fact]
    public async Task A_tree_deleted_and_created_again_in_later_merged_transactions_starts_empty_on_its_kept_object()
    {
        using var dir = new TestDirectory("merger-context-recreate");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("a"u8, "1"u8));
        // Each awaited operation is a transaction of its own: the slots' kept tree objects for "t" are started over each
        // time, on whatever state of the tree the new transaction reads.
        await env.WriteAsync(0, static (tx, _) => tx.OpenTree("t").Put("b"u8, "2"u8));
        Assert.True(await env.WriteAsync(0, static (tx, _) => tx.DeleteTree("t")));
        Assert.False(await env.WriteAsync(0, static (tx, s) => tx.TryOpenTree("t", out _)));
        var count = await env.WriteAsync(0, static (tx, _) =>
        {
            var tree = tx.CreateTree("t");
            long before = tree.Count;
            tree.Put("c"u8, "3"u8);
            return before;
        });
        Assert.Equal(0, count);
        Assert.Equal(1, await env.WriteAsync(0, static (tx, _) => tx.OpenTree("t").Count));
        using var snapshot = env.BeginReadSnapshot();
        var reread = snapshot.OpenTree("t");
        Assert.False(reread.TryGet("a"u8, out _));
        Assert.False(reread.TryGet("b"u8, out _));
        Assert.True(reread.TryGet("c"u8, out _));
    }

    [Fact]
    public async Task A_merged_transaction_kept_past_its_operation_throws_outside_an_operation_and_on_another_thread()
    {
        using var dir = new TestDirectory("merger-wrapper-reuse");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("a"u8, "1"u8));
        // The merger keeps each slot's wrapper from transaction to transaction: the one returned here is (on one of the
        // two slots) the very object later operations receive. It writes, so its transaction commits (one that changes
        // nothing takes another path through the slots).
        var kept = await env.WriteAsync(0, static (tx, _) =>
        {
            tx.OpenTree("t").Put("k"u8, "1"u8);
            return tx;
        });
        Assert.True(kept.IsDisposed);
        Assert.Throws<ObjectDisposedException>(() => kept.OpenTree("t"));

        bool reused = false;
        for (int i = 0; i < 4; i++)
        {
            // Inside a later operation, used from another thread (what an operation that handed its transaction to other
            // code would do): the transaction is usable only on the thread running the operation.
            var (sameObject, fromOtherThread) = await env.WriteAsync(kept, static (tx, old) =>
            {
                tx.OpenTree("t").Put("b"u8, "2"u8);
                var error = Task.Run(() => Record(() => old.OpenTree("t").Put("c"u8, "3"u8))).Result;
                var current = Task.Run(() => Record(() => tx.OpenTree("t").Put("d"u8, "4"u8))).Result;
                return (ReferenceEquals(tx, old), error is ObjectDisposedException && current is ObjectDisposedException);
            });
            Assert.True(fromOtherThread);
            Assert.True(kept.IsDisposed);
            Assert.Throws<ObjectDisposedException>(() => kept.GetTreeNames());
            reused |= sameObject;
        }
        // Each awaited operation is a transaction of its own, on the merger's two slots in turn.
        Assert.True(reused, "no later transaction was given the kept wrapper");
        using var snapshot = env.BeginReadSnapshot();
        var tree = snapshot.OpenTree("t");
        Assert.True(tree.TryGet("b"u8, out _));
        Assert.False(tree.TryGet("c"u8, out _));
        Assert.False(tree.TryGet("d"u8, out _));
    }

    private static Exception? Record(Action action)
    {
        try
        {
            action();
            return null;
        }
        catch (Exception e)
        {
            return e;
        }
    }
}
