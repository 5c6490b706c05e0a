using System.Buffers.Binary;
using System.Globalization;
using System.Text;
using static Cairn.Stress.Workload.WorkloadValues;

namespace Cairn.Stress.Workload;

/// <summary>
/// The stress workload: transaction <c>i</c> (1, 2, 3, …; the workload's own numbering, kept in meta/last) is a
/// fixed list of operations derived only from the seed, the shape and <c>i</c>, so whoever knows the last
/// transaction a database holds can compute its exact expected contents, and a reader can compute what the
/// newest transactions of its snapshot wrote.
/// </summary>
/// <remarks>
/// Transaction <c>i</c>:
/// <list type="bullet">
/// <item>i = 1 creates "meta", "accounts", "log" and the data trees "d0".., writes the workload's description
/// into meta/workload and opens 64 accounts with 1,000 each.</item>
/// <item>"log": puts BE64(i) (large, for overflow pages, about one transaction in <see cref="WorkloadShape.LargeValueEvery"/>)
/// and deletes BE64(i − <see cref="WorkloadShape.LogWindow"/>), so freed pages get reused.</item>
/// <item>Data trees: <see cref="WorkloadShape.MinKeysPerTransaction"/>..<see cref="WorkloadShape.MaxKeysPerTransaction"/>
/// puts or deletes of keys from a space of <see cref="WorkloadShape.KeySpace"/> per tree.</item>
/// <item>"accounts": a transfer between two accounts, so the balances always add up to 64,000.</item>
/// <item>Every <see cref="WorkloadShape.ExtraTreeEvery"/>th (97th by default; n = i / 97) creates tree "tN" with 3–12 keys
/// and deletes "t(N−3)", so the tree directory changes and whole trees' pages are freed; every 7th other transaction past
/// the first puts a key into the newest.</item>
/// <item>"meta": puts "count/TREE" (the key count of every counted tree it changed; a reader compares it with the
/// tree's own count) and "last" → BE64(i), the number the checker reads back.</item>
/// </list>
/// </remarks>
internal sealed class StressWorkload
{
    public const string MetaTree = "meta";
    public const string AccountsTree = "accounts";
    public const string LogTree = "log";
    public const int ExtraTreesKept = 3;
    public const int Accounts = 64;
    public const long InitialBalance = 1000;

    public static readonly byte[] LastKey = "last"u8.ToArray();
    public static readonly byte[] MarkerKey = "workload"u8.ToArray();

    private enum Purpose : byte
    {
        LogSize = 1,
        LogFiller,
        DataCount,
        DataTree,
        DataKey,
        DataFiller,
        Transfer,
        ExtraCount,
        ExtraFiller,
        ExtraSize,
    }

    private readonly long _seed;
    private readonly string[] _countedTrees;

    public StressWorkload(long seed, WorkloadShape shape)
    {
        shape.Validate();
        _seed = seed;
        Shape = shape;
        _countedTrees = [LogTree, .. Enumerable.Range(0, shape.Trees).Select(DataTree)];
        Marker = Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"cairn stress seed={seed} {shape.Describe()}"));
    }

    public long Seed => _seed;

    public WorkloadShape Shape { get; }

    /// <summary>What meta/workload holds after the stamp: the seed and the shape, so a directory of another workload is recognised.</summary>
    public byte[] Marker { get; }

    /// <summary>Trees whose key count meta keeps ("count/TREE").</summary>
    public IReadOnlyList<string> CountedTrees => _countedTrees;

    public bool IsCounted(string tree) => Array.IndexOf(_countedTrees, tree) >= 0;

    public static string DataTree(int t) => string.Create(CultureInfo.InvariantCulture, $"d{t}");

    public static string ExtraTree(long n) => string.Create(CultureInfo.InvariantCulture, $"t{n}");

    public static bool IsExtraTree(string tree) => tree.Length > 1 && tree[0] == 't' && tree.AsSpan(1).IndexOfAnyExceptInRange('0', '9') < 0;

    public static byte[] LogKey(long i) => BigEndian(i);

    public static byte[] CounterKey(string tree) => Encoding.ASCII.GetBytes("count/" + tree);

    public static byte[] AccountKey(int a) => Encoding.ASCII.GetBytes(string.Create(CultureInfo.InvariantCulture, $"acct/{a:D4}"));

    public static byte[] DataKey(long k) => Encoding.ASCII.GetBytes(string.Create(CultureInfo.InvariantCulture, $"key/{k:D9}"));

    /// <summary>The operations of transaction <paramref name="i"/>, in the order they are applied.</summary>
    public IReadOnlyList<StressOperation> Transaction(long i)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(i, 1);
        var ops = new List<StressOperation>(16);
        if (i == 1)
            AddFirst(ops);

        ops.Add(StressOperation.Put(LogTree, LogKey(i), LogValue(i)));
        if (i > Shape.LogWindow)
            ops.Add(StressOperation.Delete(LogTree, LogKey(i - Shape.LogWindow)));

        int count = InRange(Hash(i, 0, Purpose.DataCount), Shape.MinKeysPerTransaction, Shape.MaxKeysPerTransaction);
        for (int j = 0; j < count; j++)
        {
            string tree = DataTree((int)(Hash(i, j, Purpose.DataTree) % (ulong)Shape.Trees));
            ulong h = Hash(i, j, Purpose.DataKey);
            var key = DataKey((long)(h % (ulong)Shape.KeySpace));
            if (Shape.DeleteEvery > 0 && (h >> 40) % (ulong)Shape.DeleteEvery == 0)
                ops.Add(StressOperation.Delete(tree, key));
            else
                ops.Add(StressOperation.Put(tree, key, DataValue(i, j)));
        }

        ulong t = Hash(i, 0, Purpose.Transfer);
        int from = (int)(t % Accounts);
        int to = (from + 1 + (int)((t >> 16) % (Accounts - 1))) % Accounts;
        ops.Add(StressOperation.Transfer(AccountKey(from), AccountKey(to), 1 + (long)((t >> 32) % 100)));

        AddExtraTrees(ops, i);
        ops.Add(StressOperation.Put(MetaTree, LastKey, BigEndian(i)));
        return ops;
    }

    /// <summary>Commits transactions <paramref name="from"/>..<paramref name="to"/>, each with its own <c>BeginWrite</c>/<c>Commit</c>.</summary>
    public void Commit(StorageEnvironment env, long from, long to)
    {
        for (long i = from; i <= to; i++)
        {
            using var tx = env.BeginWrite();
            Apply(tx, i);
            tx.Commit();
        }
    }

    /// <summary>Applies transaction <paramref name="i"/> inside <paramref name="tx"/> (which the caller commits).</summary>
    public void Apply(WriteTransaction tx, long i) => TransactionApplier.Apply(new EngineStore(tx), this, i);

    /// <summary>
    /// Applies the transaction after the last one <paramref name="tx"/> holds and returns its number: what a
    /// caller does that shares the environment with others, each numbering its transaction inside it.
    /// </summary>
    public long ApplyNext(WriteTransaction tx)
    {
        long next = ReadLast(tx) + 1;
        Apply(tx, next);
        return next;
    }

    /// <summary>The last workload transaction the snapshot holds: meta/last, or 0 for a database the workload never touched.</summary>
    public static long ReadLast(ReadTransaction tx)
    {
        if (!tx.TryOpenTree(MetaTree, out var meta) || !meta.TryGet(LastKey, out var value))
            return 0;
        if (value.Length != sizeof(long))
            throw new InvalidDataException($"meta/last is {value.Length} bytes ({Convert.ToHexString(value)}), not 8");
        return BinaryPrimitives.ReadInt64BigEndian(value);
    }

    /// <summary>What meta/workload says after its stamp (null if absent): which workload wrote the database.</summary>
    public static string? ReadMarker(ReadTransaction tx)
        => tx.TryOpenTree(MetaTree, out var meta) && meta.TryGet(MarkerKey, out var value) && value.Length >= StampBytes
            ? Encoding.UTF8.GetString(value[StampBytes..])
            : null;

    private void AddFirst(List<StressOperation> ops)
    {
        ops.Add(StressOperation.CreateTree(MetaTree));
        ops.Add(StressOperation.CreateTree(AccountsTree));
        foreach (var tree in _countedTrees)
            ops.Add(StressOperation.CreateTree(tree));
        ops.Add(StressOperation.Put(MetaTree, MarkerKey, [.. BigEndian(1), .. Marker]));
        for (int a = 0; a < Accounts; a++)
            ops.Add(StressOperation.Put(AccountsTree, AccountKey(a), StampedNumber(1, InitialBalance)));
    }

    private void AddExtraTrees(List<StressOperation> ops, long i)
    {
        long extra = i / Shape.ExtraTreeEvery;
        if (i % Shape.ExtraTreeEvery == 0)
        {
            var name = ExtraTree(extra);
            ops.Add(StressOperation.CreateTree(name));
            int keys = 3 + (int)(Hash(i, 0, Purpose.ExtraCount) % 10);
            for (int k = 0; k < keys; k++)
                ops.Add(StressOperation.Put(name, BigEndian(k), Filled(Hash(i, k, Purpose.ExtraFiller), i, ExtraValueLength(i, k))));
            if (extra > ExtraTreesKept)
                ops.Add(StressOperation.DeleteTree(ExtraTree(extra - ExtraTreesKept)));
        }
        else if (extra > 0 && i % 7 == 0)
        {
            ops.Add(StressOperation.Put(ExtraTree(extra), BigEndian(i), Filled(Hash(i, 0, Purpose.ExtraFiller), i, 40)));
        }
    }

    /// <summary>An extra tree's value: small, or with <see cref="WorkloadShape.LargeExtraTreeValues"/> in the large range (overflow runs its drop frees).</summary>
    private int ExtraValueLength(long i, int k)
        => Shape.LargeExtraTreeValues
            ? InRange(Hash(i, k, Purpose.ExtraSize), Shape.MinLargeValueBytes, Shape.MaxLargeValueBytes)
            : 8 + 16 * k;

    private byte[] LogValue(long i)
    {
        ulong h = Hash(i, 0, Purpose.LogSize);
        int length = Shape.LargeValueEvery > 0 && h % (ulong)Shape.LargeValueEvery == 0
            ? InRange(h >> 8, Shape.MinLargeValueBytes, Shape.MaxLargeValueBytes)
            : InRange(h >> 8, Shape.MinValueBytes, Shape.MaxValueBytes);
        return Filled(Hash(i, 0, Purpose.LogFiller), i, length);
    }

    /// <summary>The stamp, BE32 of the operation's index, then filler.</summary>
    private byte[] DataValue(long i, int j)
    {
        ulong h = Hash(i, j, Purpose.DataFiller);
        var value = Filled(h, i, InRange(h >> 8, Shape.MinValueBytes, Shape.MaxValueBytes));
        BinaryPrimitives.WriteInt32BigEndian(value.AsSpan(StampBytes), j);
        return value;
    }

    private ulong Hash(long i, int j, Purpose purpose)
        => Mix(Mix(Mix((ulong)_seed) ^ (ulong)i) ^ ((ulong)(uint)j << 8 | (byte)purpose));
}
