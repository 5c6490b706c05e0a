using System.Buffers.Binary;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// Sequential fills and bulk loads (<see cref="Tree.Append"/>) through the public API, a transaction per batch as
/// the fill benchmarks run them: leaves end up full, the environment verifies clean, a refused key changes nothing
/// and leaves the transaction usable, and a bulk-loaded commit survives a crash like any other.
/// </summary>
public class BulkLoadTests
{
    private const string TreeName = "loaded";
    private const int ValueLength = 100;
    private const int Batch = 1_000;

    // 16-byte keys and 100-byte values, the benchmarks' shape: 7 + 16 + 100 = 123 bytes per node and 2 per slot,
    // so a full leaf holds (8192 - 32) / 125 = 65 entries. A fill that leaves full leaves averages close to 65 per
    // leaf; 0.9 of it leaves room for the partly filled leaf where each run ends and a few middle splits, while a
    // fill that splits in the middle lands near 0.5.
    private const double FullLeafEntries = (8192 - 32) / (7.0 + 16 + ValueLength + 2);
    private const double MinimumFill = 0.9;

    private static StorageOptions Options(string path) => new(path)
    {
        CommitMode = CommitMode.Lazy,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };

    private static byte[] Key(long n)
    {
        var key = new byte[16];
        BinaryPrimitives.WriteInt64BigEndian(key.AsSpan(8), n);
        return key;
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_sequential_fill_in_batches_leaves_full_leaves_and_verifies_clean(bool belowAHigherKey)
    {
        using var dir = new TestDirectory("bulk-sequential");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        int higher = belowAHigherKey ? 1 : 0;
        if (belowAHigherKey)
            Put(env, [(Key(long.MaxValue), Bytes.Value(0, ValueLength))]);
        for (int start = 0; start < 30_000; start += Batch)
            Put(env, Enumerable.Range(start, Batch).Select(i => (Key(i), Bytes.Value(i, ValueLength))));

        AssertFull(env, 30_000 + higher);
        env.Verify();
    }

    [Fact]
    public void A_bulk_load_in_batches_leaves_full_leaves_and_continues_a_non_empty_tree()
    {
        using var dir = new TestDirectory("bulk-append");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        // A tree filled by random puts first: appends continue above its last key.
        var random = new Random(29);
        Put(env, Enumerable.Range(0, 2_000).OrderBy(_ => random.Next()).Select(i => (Key(i), Bytes.Value(i, ValueLength))));
        long leavesBefore = LeafPages(env);
        for (int start = 2_000; start < 32_000; start += Batch)
            Append(env, start, Batch);

        using (var tx = env.BeginRead())
        {
            var tree = tx.OpenTree(TreeName);
            Assert.Equal(32_000, tree.Count);
            using var cursor = tree.CreateCursor();
            long expected = 0;
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext(), expected++)
            {
                Assert.Equal(Key(expected), cursor.Key.ToArray());
                Assert.Equal(Bytes.Value(expected, ValueLength), cursor.Value.ToArray());
            }
            Assert.Equal(32_000, expected);
        }
        double appendedPerLeaf = 30_000.0 / (LeafPages(env) - leavesBefore);
        Assert.True(appendedPerLeaf >= MinimumFill * FullLeafEntries, $"{appendedPerLeaf:F1} appended entries per new leaf");
        env.Verify();
    }

    [Fact]
    public void A_refused_key_changes_nothing_and_the_transaction_still_commits()
    {
        using var dir = new TestDirectory("bulk-refused");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        Append(env, 0, 100);

        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree(TreeName);
            for (int i = 100; i < 200; i++)
                tree.Append(Key(i), Bytes.Value(i, ValueLength));
            var outOfOrder = Assert.Throws<KeyOrderException>(() => tree.Append(Key(150), [1]));
            var duplicate = Assert.Throws<KeyOrderException>(() => tree.Append(Key(199), [1]));
            foreach (var (error, key) in new[] { (outOfOrder, Key(150)), (duplicate, Key(199)) })
            {
                Assert.Equal(TreeName, error.TreeName);
                Assert.Equal(Key(199), error.LastKey.ToArray());
                Assert.Equal(key, error.Key.ToArray());
            }
            Assert.Equal(200, tree.Count);
            Assert.Equal(Bytes.Value(150, ValueLength), tree.Get(Key(150)));
            Assert.Equal(Bytes.Value(199, ValueLength), tree.Get(Key(199)));
            tree.Append(Key(200), Bytes.Value(200, ValueLength));
            tx.Commit();
        }

        using var read = env.BeginRead();
        Assert.Equal(201, read.OpenTree(TreeName).Count);
        Assert.Throws<ReadOnlyTransactionException>(() => read.OpenTree(TreeName).Append(Key(1_000), [1]));
        env.Verify();
    }

    [Fact]
    public void Bulk_loaded_commits_come_back_after_a_crash()
    {
        using var dir = new TestDirectory("bulk-crash");
        var env = StorageEnvironment.Open(Options(dir.Path));
        for (int start = 0; start < 20_000; start += Batch)
            Append(env, start, Batch);
        using (var tx = env.BeginWrite())
        {
            // Overflow values and a second tree in the same bulk-loaded transaction.
            var tree = tx.CreateTree("large");
            for (int i = 0; i < 20; i++)
                tree.Append(Key(i), Bytes.Value(i, 20_000));
            tx.Commit(CommitMode.Durable);
        }
        var before = Dump(env);
        long last = env.LastCommittedTransactionId;
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(last, reopened.LastCommittedTransactionId);
        Assert.Equal(before, Dump(reopened));
        reopened.Verify();
        Append(reopened, 20_000, 10);
        Assert.Equal(20_010, Dump(reopened)[TreeName].Count);
    }

    private static void Put(StorageEnvironment env, IEnumerable<(byte[] Key, byte[] Value)> entries)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        foreach (var (key, value) in entries)
            tree.Put(key, value);
        tx.Commit();
    }

    private static void Append(StorageEnvironment env, int start, int count)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        for (int i = start; i < start + count; i++)
            tree.Append(Key(i), Bytes.Value(i, ValueLength));
        tx.Commit();
    }

    private static long LeafPages(StorageEnvironment env) => env.GetInfo().Trees.Single(t => t.Name == TreeName).LeafPages;

    private static void AssertFull(StorageEnvironment env, long entries)
    {
        var tree = env.GetInfo().Trees.Single(t => t.Name == TreeName);
        Assert.Equal(entries, tree.Entries);
        double perLeaf = tree.Entries / (double)tree.LeafPages;
        Assert.True(perLeaf >= MinimumFill * FullLeafEntries, $"{perLeaf:F1} entries per leaf, {tree.LeafPages} leaves");
    }

    /// <summary>Every tree's entries, hex key to hex value, in order.</summary>
    private static Dictionary<string, List<string>> Dump(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        var dump = new Dictionary<string, List<string>>();
        foreach (string name in new[] { TreeName, "large" })
        {
            var entries = new List<string>();
            using var cursor = tx.OpenTree(name).CreateCursor();
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                entries.Add($"{Convert.ToHexString(cursor.Key)}={Convert.ToHexString(cursor.Value)}");
            dump[name] = entries;
        }
        return dump;
    }
}
