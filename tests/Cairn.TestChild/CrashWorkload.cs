using System.Buffers.Binary;
using System.Text;

namespace Cairn.TestChild;

/// <summary>
/// The crash tests' deterministic workload: transaction <c>i</c> (1, 2, 3, …; the workload's own
/// numbering) is a fixed list of operations derived only from the seed and <c>i</c>, so whoever knows
/// the last transaction a database holds can compute its exact expected contents.
/// </summary>
/// <remarks>
/// Transaction <c>i</c>:
/// <list type="bullet">
/// <item>i = 1 creates the trees "log", "state" and "meta".</item>
/// <item>"log": puts BE64(i) → a value starting with BE64(i), 20–300 bytes, but 9–40 KiB for about
/// one transaction in 13 (overflow pages); deletes BE64(i − 300), so freed pages get reused. With
/// large values, about one transaction in 5 puts 40–400 KiB instead (runs of 5 to 50 pages, freed
/// 300 transactions later and reallocated in other shapes).</item>
/// <item>"state": 3–6 keys "state/NNNN" from a space of 2,000; each is put to BE64(i) BE32(j) + filler,
/// or deleted one time in eight.</item>
/// <item>Every 97th (n = i / 97): creates tree "tN" with 3–12 keys and deletes "t(N−3)", so the tree
/// directory changes and whole trees' pages are freed. Every 7th other transaction past 97 puts a key
/// into the newest of those trees.</item>
/// <item>"meta": puts "last" → BE64(i), the number the checker reads back.</item>
/// </list>
/// Every value starts with BE64 of the transaction that wrote it, so a difference report can say which
/// transaction a stray value came from.
/// </remarks>
public sealed class CrashWorkload(long seed, bool largeValues = false)
{
    public const string LogTree = "log";
    public const string StateTree = "state";
    public const string MetaTree = "meta";
    public const int LogWindow = 300;
    public const int StateKeySpace = 2000;
    public const int ExtraTreeInterval = 97;
    public const int ExtraTreesKept = 3;

    public static readonly byte[] LastKey = "last"u8.ToArray();

    private enum Purpose : byte
    {
        LogSize = 1,
        LogFiller,
        StateCount,
        StateKey,
        StateFiller,
        ExtraCount,
        ExtraFiller,
    }

    public long Seed => seed;

    public bool LargeValues => largeValues;

    public static string ExtraTreeName(long n) => $"t{n}";

    public static byte[] LogKey(long i) => BigEndian(i);

    /// <summary>The operations of transaction <paramref name="i"/>, in the order they are applied.</summary>
    public IReadOnlyList<CrashOperation> Transaction(long i)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(i, 1);
        var ops = new List<CrashOperation>(16);
        if (i == 1)
        {
            ops.Add(CrashOperation.CreateTree(LogTree));
            ops.Add(CrashOperation.CreateTree(StateTree));
            ops.Add(CrashOperation.CreateTree(MetaTree));
        }

        ops.Add(CrashOperation.Put(LogTree, LogKey(i), LogValue(i)));
        if (i > LogWindow)
            ops.Add(CrashOperation.Delete(LogTree, LogKey(i - LogWindow)));

        int stateKeys = 3 + (int)(Hash(i, 0, Purpose.StateCount) % 4);
        for (int j = 0; j < stateKeys; j++)
        {
            ulong h = Hash(i, j, Purpose.StateKey);
            var key = Encoding.ASCII.GetBytes($"state/{h % StateKeySpace:D4}");
            if ((h >> 32) % 8 == 0)
                ops.Add(CrashOperation.Delete(StateTree, key));
            else
                ops.Add(CrashOperation.Put(StateTree, key, StateValue(i, j, 4 + (int)((h >> 40) % 200))));
        }

        long extra = i / ExtraTreeInterval;
        if (i % ExtraTreeInterval == 0)
        {
            var name = ExtraTreeName(extra);
            ops.Add(CrashOperation.CreateTree(name));
            int keys = 3 + (int)(Hash(i, 0, Purpose.ExtraCount) % 10);
            for (int k = 0; k < keys; k++)
                ops.Add(CrashOperation.Put(name, BigEndian(k), Filled(i, k, Purpose.ExtraFiller, 8 + 16 * k)));
            if (extra > ExtraTreesKept)
                ops.Add(CrashOperation.DeleteTree(ExtraTreeName(extra - ExtraTreesKept)));
        }
        else if (extra > 0 && i % 7 == 0)
        {
            ops.Add(CrashOperation.Put(ExtraTreeName(extra), BigEndian(i), Filled(i, 0, Purpose.ExtraFiller, 40)));
        }

        ops.Add(CrashOperation.Put(MetaTree, LastKey, BigEndian(i)));
        return ops;
    }

    /// <summary>Applies transaction <paramref name="i"/> inside <paramref name="tx"/> (which the caller commits).</summary>
    public void Apply(WriteTransaction tx, long i)
    {
        foreach (var op in Transaction(i))
            op.ApplyTo(tx);
    }

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

    private byte[] LogValue(long i)
    {
        ulong h = Hash(i, 0, Purpose.LogSize);
        int length = largeValues && h % 5 == 0 ? 40 * 1024 + (int)((h >> 8) % (360 * 1024 + 1))
            : h % 13 == 0 ? 9 * 1024 + (int)((h >> 8) % (31 * 1024 + 1))
            : 20 + (int)((h >> 8) % 281);
        return Filled(i, 0, Purpose.LogFiller, length);
    }

    private byte[] StateValue(long i, int j, int fillerLength)
    {
        var value = Filled(i, j, Purpose.StateFiller, 12 + fillerLength);
        BinaryPrimitives.WriteInt32BigEndian(value.AsSpan(8), j);
        return value;
    }

    /// <summary>BE64(i) followed by hash-derived bytes up to <paramref name="length"/> (at least 8).</summary>
    private byte[] Filled(long i, int j, Purpose purpose, int length)
    {
        var value = new byte[length];
        BinaryPrimitives.WriteInt64BigEndian(value, i);
        ulong state = Hash(i, j, purpose);
        var rest = value.AsSpan(8);
        while (rest.Length >= 8)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(rest, state = Mix(state));
            rest = rest[8..];
        }
        for (int b = 0; b < rest.Length; b++)
            rest[b] = (byte)(state = Mix(state));
        return value;
    }

    private ulong Hash(long i, int j, Purpose purpose)
        => Mix(Mix(Mix((ulong)seed) ^ (ulong)i) ^ ((ulong)(uint)j << 8 | (byte)purpose));

    /// <summary>SplitMix64's finaliser: every input bit affects every output bit.</summary>
    private static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EB;
        return x ^ (x >> 31);
    }

    private static byte[] BigEndian(long n)
    {
        var bytes = new byte[sizeof(long)];
        BinaryPrimitives.WriteInt64BigEndian(bytes, n);
        return bytes;
    }
}
