using System.Buffers.Binary;
using Cairn.Paging;
using Cairn.Trees;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Trees;

/// <summary>
/// Random operation sequences against one tree and a sorted-dictionary model. Keys come in families
/// chosen to force splits and merges (dense 4-byte keys in bulk, ~2 KB keys with shared prefixes,
/// random lengths up to 2048 over a tiny alphabet, 1–2 byte keys around 0x00/0xFF); values run from
/// empty to ~100 KiB. Failures shrink to short sequences through the op shrinker below.
/// </summary>
public class BTreeModelTests
{
    [Fact]
    public void Random_operation_sequences_match_the_model()
    {
        Arbitrary<Op[]> sequences = Arb.Array(Arb.From(ModelOps.Op, ModelOps.Shrink));
        Check.One(
            Config.QuickThrowOnFailure.WithMaxTest(1000).WithEndSize(70).WithQuietOnSuccess(true),
            Prop.ForAll(sequences, ModelOps.Run));
    }

    [Fact]
    public void A_known_sequence_replays()
    {
        // Keeps the interpreter itself covered and gives failures found by the property a place to be pinned.
        ModelOps.Run([
            new PutRangeOp(1, 0, 40, 100),
            new ScanDeleteOp(new KeySpec(1, 3), 2, 30),
            new CommitOp(),
            new PutRangeOp(0, 0, 900, 30),
            new ScanOp(ScanKind.FromReverse, new KeySpec(0, 450), 0, 100),
            new DeleteRangeOp(0, 100, 800),
            new PutOp(new KeySpec(2, 17), 100_000, 3),
            new ScanOp(ScanKind.Prefix, new KeySpec(1, 7), 601, 100),
            new DeleteRangeOp(1, 0, 40),
            new AppendRangeOp(4, 0, 700, 90),
            new AppendRangeOp(0, 0, 10, 10), // below the family-4 keys: refused at once
            new PutOp(new KeySpec(0, 5), 10, 1),
            new CommitOp(),
            new AppendRangeOp(4, 700, 100, 3000), // continues after a commit, with overflow values
            new AppendRangeOp(4, 799, 5, 10), // 799 is the last key: refused at once
        ]);
    }
}

public sealed record KeySpec(int Family, int Index);

internal enum ScanKind
{
    Forward,
    Reverse,
    From,
    FromReverse,
    Prefix,
}

internal abstract record Op;

internal sealed record PutOp(KeySpec Key, int ValueSize, int Seed) : Op;

internal sealed record DeleteOp(KeySpec Key) : Op;

internal sealed record GetOp(KeySpec Key) : Op;

internal sealed record PutRangeOp(int Family, int Start, int Count, int ValueSize) : Op;

internal sealed record DeleteRangeOp(int Family, int Start, int Count) : Op;

internal sealed record ScanOp(ScanKind Kind, KeySpec From, int PrefixLength, int Limit) : Op;

/// <summary>Forward from a key, deleting every <c>Every</c>-th visited key through the tree while the cursor is on it.</summary>
internal sealed record ScanDeleteOp(KeySpec From, int Every, int Limit) : Op;

/// <summary>Deletes the model's keys at positions <c>Offset, Offset + Stride, …</c>: thins the whole tree at once, so pages everywhere underflow.</summary>
internal sealed record ThinOp(int Stride, int Offset) : Op;

internal sealed record CommitOp : Op;

/// <summary>
/// A bulk load through <see cref="BTree.Append"/>: keys <c>Start..Start+Count-1</c> of a family (family 4: keys above
/// every other family), stopping at the first one the tree refuses because it is not above the last key.
/// </summary>
internal sealed record AppendRangeOp(int Family, int Start, int Count, int ValueSize) : Op;

internal static class ModelOps
{
    private const int Families = 4;
    private const int IndexRange = 300;

    public static byte[] KeyBytes(KeySpec spec)
    {
        int i = spec.Index;
        switch (((spec.Family % Families) + Families) % Families)
        {
            case 0:
            {
                var key = new byte[4];
                BinaryPrimitives.WriteInt32BigEndian(key, i);
                return key;
            }
            case 1:
            {
                // Long shared prefixes of four lengths: three or four keys per page, deep trees fast.
                int prefix = 600 + (Math.Abs(i) % 4) * 450;
                var key = new byte[prefix + 4];
                key.AsSpan(0, prefix).Fill((byte)'P');
                BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(prefix), i);
                return key;
            }
            case 2:
            {
                // Any length up to the maximum, over {0x00, 0x01, 0xFF}: many shared prefixes and unsigned comparisons.
                uint state = (uint)i * 2654435761u + 12345;
                var key = new byte[1 + (int)(Mix(ref state) % 2048)];
                for (int b = 0; b < key.Length; b++)
                    key[b] = (Mix(ref state) % 3) switch { 0 => 0x00, 1 => 0x01, _ => 0xFF };
                return key;
            }
            default:
                return i is >= 0 and < 256 ? [(byte)i] : [(byte)(i >> 8), (byte)i];
        }
    }

    private static uint Mix(ref uint state)
    {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }

    /// <summary>Family 4 sorts above the others (16 bytes of 0xFF, then the index) so that appends are mostly taken.</summary>
    public static byte[] AppendKeyBytes(int family, int index)
    {
        if (family != Families)
            return KeyBytes(new KeySpec(family, index));
        var key = new byte[20];
        key.AsSpan(0, 16).Fill(0xFF);
        BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(16), index);
        return key;
    }

    public static byte[] ValueBytes(int seed, int size) => TreeHarness.Value(seed, Math.Max(0, size));

    // ---- generators ----

    private static readonly Gen<KeySpec> Key =
        from family in Gen.Choose(0, Families - 1)
        from index in Gen.Choose(0, IndexRange)
        select new KeySpec(family, index);

    private static readonly Gen<int> ValueSize = Gen.Frequency(
        (6, Gen.Choose(0, 64)),
        (3, Gen.Choose(65, 2800)), // around the inline limit
        (1, Gen.Choose(2800, 110_000)));

    public static readonly Gen<Op> Op = Gen.Frequency<Op>(
        (10, from key in Key from size in ValueSize from seed in Gen.Choose(0, 255) select (Op)new PutOp(key, size, seed)),
        (4, Key.Select(key => (Op)new DeleteOp(key))),
        (2, Key.Select(key => (Op)new GetOp(key))),
        (3, from family in Gen.Choose(0, Families - 1)
            from start in Gen.Choose(0, IndexRange)
            from count in family == 0 ? Gen.Choose(1, 1500) : Gen.Choose(1, 120)
            from size in Gen.Frequency((8, Gen.Choose(0, 100)), (1, Gen.Choose(100, 4000)))
            select (Op)new PutRangeOp(family, start, count, size)),
        (3, from family in Gen.Choose(0, Families - 1)
            from start in Gen.Choose(0, IndexRange)
            from count in family == 0 ? Gen.Choose(1, 1500) : Gen.Choose(1, 120)
            select (Op)new DeleteRangeOp(family, start, count)),
        (3, from kind in Gen.Elements(Enum.GetValues<ScanKind>())
            from key in Key
            from prefix in Gen.Choose(1, 700)
            from limit in Gen.Choose(1, 400)
            select (Op)new ScanOp(kind, key, prefix, limit)),
        (1, from key in Key
            from every in Gen.Choose(1, 3)
            from limit in Gen.Choose(1, 400)
            select (Op)new ScanDeleteOp(key, every, limit)),
        (2, from stride in Gen.Frequency((1, Gen.Constant(1)), (3, Gen.Choose(2, 5)))
            from offset in Gen.Choose(0, 4)
            select (Op)new ThinOp(stride, offset)),
        (1, Gen.Constant((Op)new CommitOp())),
        (3, from family in Gen.Frequency((1, Gen.Choose(0, Families - 1)), (2, Gen.Constant(Families)))
            from start in Gen.Choose(0, IndexRange)
            from count in Gen.Frequency((3, Gen.Choose(1, 1500)), (1, Gen.Choose(1, 40)))
            from size in Gen.Frequency((8, Gen.Choose(0, 100)), (1, Gen.Choose(100, 4000)))
            select (Op)new AppendRangeOp(family, start, count, size)));

    // ---- shrinking: towards fewer entries, smaller values and smaller indices ----

    public static IEnumerable<Op> Shrink(Op op)
    {
        switch (op)
        {
            case PutOp p:
                foreach (int size in Smaller(p.ValueSize))
                    yield return p with { ValueSize = size };
                foreach (KeySpec key in Smaller(p.Key))
                    yield return p with { Key = key };
                break;
            case DeleteOp d:
                foreach (KeySpec key in Smaller(d.Key))
                    yield return d with { Key = key };
                break;
            case GetOp g:
                foreach (KeySpec key in Smaller(g.Key))
                    yield return g with { Key = key };
                break;
            case PutRangeOp r:
                foreach (int count in Smaller(r.Count).Where(c => c > 0))
                    yield return r with { Count = count };
                foreach (int size in Smaller(r.ValueSize))
                    yield return r with { ValueSize = size };
                foreach (int start in Smaller(r.Start))
                    yield return r with { Start = start };
                break;
            case AppendRangeOp a:
                // Shrinks as the put range of the same keys does.
                foreach (var r in Shrink(new PutRangeOp(a.Family, a.Start, a.Count, a.ValueSize)).Cast<PutRangeOp>())
                    yield return new AppendRangeOp(r.Family, r.Start, r.Count, r.ValueSize);
                break;
            case DeleteRangeOp r:
                foreach (int count in Smaller(r.Count).Where(c => c > 0))
                    yield return r with { Count = count };
                foreach (int start in Smaller(r.Start))
                    yield return r with { Start = start };
                break;
            case ScanOp s:
                if (s.Kind != ScanKind.Forward)
                    yield return s with { Kind = ScanKind.Forward };
                foreach (int limit in Smaller(s.Limit).Where(l => l > 0))
                    yield return s with { Limit = limit };
                foreach (KeySpec key in Smaller(s.From))
                    yield return s with { From = key };
                break;
            case ScanDeleteOp s:
                foreach (int limit in Smaller(s.Limit).Where(l => l > 0))
                    yield return s with { Limit = limit };
                foreach (KeySpec key in Smaller(s.From))
                    yield return s with { From = key };
                break;
            case ThinOp t:
                if (t.Stride != 1)
                    yield return t with { Stride = 1, Offset = 0 };
                if (t.Offset != 0)
                    yield return t with { Offset = 0 };
                break;
        }
    }

    private static IEnumerable<int> Smaller(int value)
    {
        if (value <= 0)
            yield break;
        yield return 0;
        int half = value / 2;
        int threeQuarters = (int)(value * 3L / 4);
        if (half > 0)
            yield return half;
        if (threeQuarters > half)
            yield return threeQuarters;
        if (value - 1 > threeQuarters)
            yield return value - 1;
    }

    private static IEnumerable<KeySpec> Smaller(KeySpec key)
    {
        if (key.Family != 0)
            yield return key with { Family = 0 };
        foreach (int index in Smaller(key.Index))
            yield return key with { Index = index };
    }

    // ---- the interpreter ----

    public static void Run(Op[] ops)
    {
        using var h = new TreeHarness();
        var cursor = new BTreeCursor(h.Tree);
        foreach (Op op in ops)
            Apply(h, cursor, op);
        h.CheckAll();
        h.Pages.Commit();
    }

    private static void Apply(TreeHarness h, BTreeCursor cursor, Op op)
    {
        switch (op)
        {
            case PutOp p:
                h.Put(KeyBytes(p.Key), ValueBytes(p.Seed, p.ValueSize));
                break;
            case DeleteOp d:
                h.Delete(KeyBytes(d.Key));
                break;
            case GetOp g:
            {
                byte[] key = KeyBytes(g.Key);
                bool found = h.Tree.TryGet(key, out ReadOnlySpan<byte> value);
                Assert.Equal(h.Model.TryGetValue(key, out byte[]? expected), found);
                if (found)
                    Assert.True(value.SequenceEqual(expected));
                break;
            }
            case PutRangeOp r:
                for (int i = r.Start; i < r.Start + r.Count; i++)
                    h.Put(KeyBytes(new KeySpec(r.Family, i)), ValueBytes(i, r.ValueSize));
                break;
            case DeleteRangeOp r:
                for (int i = r.Start; i < r.Start + r.Count; i++)
                    h.Delete(KeyBytes(new KeySpec(r.Family, i)));
                break;
            case ScanOp s:
                Scan(h, cursor, s);
                break;
            case ScanDeleteOp s:
                ScanDelete(h, cursor, s);
                break;
            case ThinOp t:
            {
                var keys = h.Model.Keys.ToList();
                for (int i = t.Offset % t.Stride; i < keys.Count; i += t.Stride)
                    h.Delete(keys[i]);
                break;
            }
            case AppendRangeOp r:
                AppendRange(h, r);
                break;
            case CommitOp:
                h.Pages.Commit();
                h.Tree.Verify();
                break;
        }
    }

    private static void AppendRange(TreeHarness h, AppendRangeOp op)
    {
        byte[]? last = h.Model.Count == 0 ? null : h.Model.Keys.Last();
        for (int i = op.Start; i < op.Start + op.Count; i++)
        {
            byte[] key = AppendKeyBytes(op.Family, i);
            if (last is null || ByteArrayComparer.Instance.Compare(key, last) > 0)
            {
                h.Append(key, ValueBytes(i, op.ValueSize));
                last = key;
                continue;
            }
            TreeState state = h.Tree.State;
            long version = h.Tree.Version;
            var error = Assert.Throws<KeyOrderException>(() => h.Tree.Append(key, ValueBytes(i, op.ValueSize), "appended"));
            Assert.Equal(last, error.LastKey.ToArray());
            Assert.Equal(key, error.Key.ToArray());
            Assert.Equal(state, h.Tree.State);
            Assert.Equal(version, h.Tree.Version);
            return;
        }
    }

    private static void Scan(TreeHarness h, BTreeCursor cursor, ScanOp scan)
    {
        byte[] from = KeyBytes(scan.From);
        var comparer = ByteArrayComparer.Instance;
        IEnumerable<KeyValuePair<byte[], byte[]>> expected;
        bool more;
        bool forward = scan.Kind is ScanKind.Forward or ScanKind.From or ScanKind.Prefix;
        byte[] prefix = from[..Math.Min(from.Length, scan.PrefixLength)];
        switch (scan.Kind)
        {
            case ScanKind.Forward:
                expected = h.Model;
                more = cursor.First();
                break;
            case ScanKind.Reverse:
                expected = h.Model.Reverse();
                more = cursor.Last();
                break;
            case ScanKind.From:
                expected = h.Model.Where(e => comparer.Compare(e.Key, from) >= 0);
                more = cursor.Seek(from);
                break;
            case ScanKind.FromReverse:
                // The last key ≤ from, then backward.
                expected = h.Model.Reverse().Where(e => comparer.Compare(e.Key, from) <= 0);
                more = cursor.Seek(from) ? cursor.Key.SequenceEqual(from) || cursor.MovePrevious() : cursor.Last();
                break;
            default:
                expected = h.Model.Where(e => e.Key.AsSpan().StartsWith(prefix));
                more = cursor.Seek(prefix) && cursor.Key.StartsWith(prefix);
                break;
        }

        int seen = 0;
        foreach (var entry in expected.Take(scan.Limit))
        {
            Assert.True(more, $"{scan}: the cursor stopped after {seen} entries");
            TreeHarness.AssertEntry(entry, cursor);
            seen++;
            more = forward ? cursor.MoveNext() : cursor.MovePrevious();
            if (scan.Kind == ScanKind.Prefix)
                more = more && cursor.Key.StartsWith(prefix);
        }
        if (seen < scan.Limit)
            Assert.False(more, $"{scan}: the cursor went past the model's {seen} entries");
    }

    private static void ScanDelete(TreeHarness h, BTreeCursor cursor, ScanDeleteOp scan)
    {
        byte[] from = KeyBytes(scan.From);
        var expected = h.Model.Keys.Where(k => ByteArrayComparer.Instance.Compare(k, from) >= 0).Take(scan.Limit).ToList();
        var visited = new List<byte[]>();
        for (bool more = cursor.Seek(from); more && visited.Count < scan.Limit; more = cursor.MoveNext())
        {
            byte[] key = cursor.Key.ToArray();
            Assert.True(cursor.Value.SequenceEqual(h.Model[key]));
            if (visited.Count % scan.Every == 0)
                h.Delete(key);
            visited.Add(key);
        }
        Assert.Equal(expected.Count, visited.Count);
        for (int i = 0; i < expected.Count; i++)
            Assert.True(expected[i].AsSpan().SequenceEqual(visited[i]), $"{scan}: entry {i} differs");
    }
}
