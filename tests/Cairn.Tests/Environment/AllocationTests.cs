using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// The hot paths allocate nothing (a <see cref="ReadTransaction"/>: only its small handle object; a
/// <see cref="ReadSnapshot"/> nothing at all). Measured in a
/// test child of its own (<see cref="IsolatedAllocation"/>).
/// </summary>
public class AllocationTests
{
    private const int KeyCount = 5000;

    [Fact]
    public void Gets_and_cursor_steps_allocate_nothing_and_a_read_transaction_only_its_handle()
    {
        Assert.Equal(0, IsolatedAllocation.Measure(GetsAndCursorStepsProbe));
        long perTransaction = IsolatedAllocation.Measure(ReadTransactionProbe) / KeyCount;
        Assert.True(perTransaction <= 64, $"a read transaction allocated {perTransaction} bytes");
    }

    [Fact]
    public void A_read_snapshot_allocates_nothing_by_name_or_through_a_handle()
    {
        Assert.Equal(0, IsolatedAllocation.Measure(ReadSnapshotProbe));
        Assert.Equal(0, IsolatedAllocation.Measure(ReadSnapshotThroughHandleProbe));
    }

    [Fact]
    public void A_read_snapshot_read_through_the_shared_read_contract_generically_allocates_nothing()
        => Assert.Equal(0, IsolatedAllocation.Measure(ReadSnapshotThroughContractProbe));

    [Fact]
    public void A_blocking_Write_allocates_nothing_on_its_thread_in_steady_state() => Assert.Equal(0, IsolatedAllocation.Measure(BlockingWriteProbe));

    [Fact]
    public void Steady_state_puts_allocate_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(PutsProbe));

    internal static long GetsAndCursorStepsProbe()
    {
        using var dir = new TestDirectory("alloc");
        using var env = OpenWarm(dir, out var keys);
        using var tx = env.BeginRead();
        var t = tx.OpenTree("t");
        using var cursor = t.CreateCursor();
        int found = 0, stepped = 0;
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            (found, stepped) = (0, 0);
            foreach (var key in keys)
                if (t.TryGet(key, out _))
                    found++;
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                stepped++;
        });
        // Outside the measurement: xunit's Assert.Equal allocates a comparer.
        Assert.Equal(keys.Length, found);
        Assert.Equal(keys.Length, stepped);
        return allocated;
    }

    /// <summary>Bytes for <see cref="KeyCount"/> read transactions, one get each.</summary>
    internal static long ReadTransactionProbe()
    {
        using var dir = new TestDirectory("alloc-read");
        using var env = OpenWarm(dir, out var keys);
        return SteadyStateAllocation.Measure(() => ReadEachInOwnTransaction(env, keys));
    }

    /// <summary>Bytes for <see cref="KeyCount"/> read snapshots, one get each, opening the tree by name.</summary>
    internal static long ReadSnapshotProbe()
    {
        using var dir = new TestDirectory("alloc-snapshot");
        using var env = OpenWarm(dir, out var keys);
        return SteadyStateAllocation.Measure(() =>
        {
            foreach (var key in keys)
            {
                using var snapshot = env.BeginReadSnapshot();
                if (!snapshot.OpenTree("t").TryGet(key, out _))
                    throw new InvalidOperationException("a key went missing");
            }
        });
    }

    /// <summary>The same through <see cref="IReadTransaction"/> as a generic constraint: the struct is not boxed.</summary>
    internal static long ReadSnapshotThroughContractProbe()
    {
        using var dir = new TestDirectory("alloc-contract");
        using var env = OpenWarm(dir, out var keys);
        return SteadyStateAllocation.Measure(() =>
        {
            foreach (var key in keys)
            {
                using var snapshot = env.BeginReadSnapshot();
                if (!Has(snapshot, key))
                    throw new InvalidOperationException("a key went missing");
            }
        });
    }

    private static bool Has<TRead>(TRead read, byte[] key) where TRead : IReadTransaction => read.OpenTree("t").TryGet(key, out _);

    /// <summary>The same through a tree handle, after a commit (so the handle's tree objects are re-pointed, not reallocated).</summary>
    internal static long ReadSnapshotThroughHandleProbe()
    {
        using var dir = new TestDirectory("alloc-handle");
        using var env = OpenWarm(dir, out var keys);
        var handle = env.GetTreeHandle("t");
        void ReadAll()
        {
            foreach (var key in keys)
            {
                using var snapshot = env.BeginReadSnapshot();
                if (!snapshot.OpenTree(handle).TryGet(key, out _))
                    throw new InvalidOperationException("a key went missing");
            }
        }
        ReadAll();
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("t").Put(keys[0], Bytes.Value(3, 100));
            tx.Commit();
        }
        // The first read after the commit resolves the tree once more (one small entry in the handle): not measured.
        ReadAll();
        return SteadyStateAllocation.Measure(ReadAll);
    }

    /// <summary>Bytes on the calling thread for 200 blocking <c>Write</c>s of one put each.</summary>
    internal static long BlockingWriteProbe()
    {
        using var dir = new TestDirectory("alloc-write");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        var handle = env.GetTreeHandle("t");
        var key = Bytes.Key(1);
        env.Write(0, static (tx, _) => tx.CreateTree("t"));
        void WriteMany()
        {
            for (int i = 0; i < 200; i++)
                env.Write((handle, key), static (tx, s) => tx.OpenTree(s.handle).Put(s.key, s.key));
        }
        WriteMany();
        return SteadyStateAllocation.Measure(WriteMany);
    }

    internal static long PutsProbe()
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

        long allocated = SteadyStateAllocation.Measure(() =>
        {
            foreach (var key in keys)
                t.Put(key, value);
        });
        tx.Commit();
        return allocated;
    }

    /// <summary>A committed tree "t" of <see cref="KeyCount"/> keys, each read in its own transaction a few times over.</summary>
    private static StorageEnvironment OpenWarm(TestDirectory dir, out byte[][] keys)
    {
        var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        keys = Enumerable.Range(0, KeyCount).Select(i => Bytes.Key(i * 7L)).ToArray();
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("t");
            foreach (var key in keys)
                t.Put(key, Bytes.Value(1, 100));
            tx.Commit();
        }
        for (int warm = 0; warm < 3; warm++)
            ReadEachInOwnTransaction(env, keys);
        return env;
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
