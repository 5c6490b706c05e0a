using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>The hot paths allocate nothing (a read transaction: only its small handle object).</summary>
public class AllocationTests
{
    [Fact]
    public void Gets_and_cursor_steps_allocate_nothing_and_a_read_transaction_only_its_handle()
    {
        using var dir = new TestDirectory("alloc");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        var keys = Enumerable.Range(0, 5000).Select(i => Bytes.Key(i * 7L)).ToArray();
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("t");
            foreach (var key in keys)
                t.Put(key, Bytes.Value(1, 100));
            tx.Commit();
        }
        for (int warm = 0; warm < 3; warm++)
            ReadEachInOwnTransaction(env, keys);

        using (var tx = env.BeginRead())
        {
            var t = tx.OpenTree("t");
            using var cursor = t.CreateCursor();
            long before = GC.GetAllocatedBytesForCurrentThread();
            int found = 0;
            foreach (var key in keys)
                if (t.TryGet(key, out _))
                    found++;
            int stepped = 0;
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                stepped++;
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.Equal(keys.Length, found);
            Assert.Equal(keys.Length, stepped);
            Assert.Equal(0, allocated);
        }

        long start = GC.GetAllocatedBytesForCurrentThread();
        ReadEachInOwnTransaction(env, keys);
        long perTransaction = (GC.GetAllocatedBytesForCurrentThread() - start) / keys.Length;
        Assert.True(perTransaction <= 64, $"a read transaction allocated {perTransaction} bytes");
    }

    [Fact]
    public void Steady_state_puts_allocate_nothing()
    {
        using var dir = new TestDirectory("alloc-put");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        var keys = Enumerable.Range(0, 3000).Select(i => Bytes.Key(i)).ToArray();
        var value = Bytes.Value(2, 100);
        using var tx = env.BeginWrite();
        var t = tx.CreateTree("t");
        foreach (var key in keys)
            t.Put(key, value);
        foreach (var key in keys)
            t.Put(key, value); // every page now has its private copy

        long before = GC.GetAllocatedBytesForCurrentThread();
        foreach (var key in keys)
            t.Put(key, value);
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        tx.Commit();
    }

    private static void ReadEachInOwnTransaction(StorageEnvironment env, byte[][] keys)
    {
        foreach (var key in keys)
        {
            using var tx = env.BeginRead();
            Assert.True(tx.OpenTree("t").TryGet(key, out _));
        }
    }
}
