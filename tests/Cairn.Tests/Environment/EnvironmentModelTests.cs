using Cairn.Tests.Support;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Environment;

/// <summary>
/// Model-based test: random sequences of put/delete/get/range/commit/abort/reopen over several trees,
/// run against the engine and against sorted dictionaries; any difference fails, and FsCheck shrinks
/// the sequence to a short one.
/// </summary>
public class EnvironmentModelTests
{
    public enum Kind { Put, Delete, Get, Range, Commit, Abort, Reopen }

    public sealed record Op(Kind Kind, int Tree, byte[] Key, int ValueLength, bool Reverse)
    {
        public override string ToString() => Kind switch
        {
            Kind.Put => $"Put(t{Tree}, {Convert.ToHexString(Key)}, {ValueLength}B)",
            Kind.Delete or Kind.Get => $"{Kind}(t{Tree}, {Convert.ToHexString(Key)})",
            Kind.Range => $"Range(t{Tree}, from {Convert.ToHexString(Key)}{(Reverse ? ", reverse" : "")})",
            _ => Kind.ToString(),
        };
    }

    private const int Trees = 3;

    private static readonly Gen<byte[]> KeyGen = Gen.Frequency(
        (6, Gen.Choose(0, 400).Select(n => Bytes.Key(n))),                                  // dense: forces splits and merges
        (2, Gen.Choose(0, 50).Select(n => Bytes.Utf8("shared/prefix/that/is/long/" + new string('x', n % 7 * 40) + n))),
        (1, Gen.Choose(1, 2048).SelectMany(len => Gen.Choose(0, 3).Select(b => Enumerable.Repeat((byte)(b * 60 + 1), len).ToArray()))));

    private static readonly Gen<int> ValueLengthGen = Gen.Frequency(
        (12, Gen.Choose(0, 120)),
        (3, Gen.Choose(500, 2700)),
        (2, Gen.Choose(2700, 20_000)),
        (1, Gen.Choose(60_000, 120_000)));

    private static readonly Gen<Op> OpGen = Gen.Frequency(
        (40, Gen.Choose(0, Trees - 1).SelectMany(t => KeyGen.SelectMany(k => ValueLengthGen.Select(v => new Op(Kind.Put, t, k, v, false))))),
        (20, Gen.Choose(0, Trees - 1).SelectMany(t => KeyGen.Select(k => new Op(Kind.Delete, t, k, 0, false)))),
        (10, Gen.Choose(0, Trees - 1).SelectMany(t => KeyGen.Select(k => new Op(Kind.Get, t, k, 0, false)))),
        (5, Gen.Choose(0, Trees - 1).SelectMany(t => KeyGen.SelectMany(k => Gen.Elements(true, false).Select(r => new Op(Kind.Range, t, k, 0, r))))),
        (6, Gen.Constant(new Op(Kind.Commit, 0, [], 0, false))),
        (2, Gen.Constant(new Op(Kind.Abort, 0, [], 0, false))),
        (1, Gen.Constant(new Op(Kind.Reopen, 0, [], 0, false))));

    [Fact]
    public void Engine_matches_a_sorted_dictionary_model()
    {
        var ops = Gen.Sized(size => Gen.Choose(size, size * 6).SelectMany(n => Gen.ArrayOf(OpGen, n)));
        var property = Prop.ForAll(Arb.From(ops, Shrink), (Op[] sequence) => Run(sequence));
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(60).WithEndSize(120), property);
    }

    /// <summary>Shrinks by dropping halves, quarters, ... and then single operations.</summary>
    private static IEnumerable<Op[]> Shrink(Op[] ops)
    {
        for (int chunk = ops.Length / 2; chunk >= 1; chunk /= 2)
            for (int start = 0; start + chunk <= ops.Length; start += chunk)
                yield return [.. ops[..start], .. ops[(start + chunk)..]];
    }

    private static void Run(Op[] sequence)
    {
        using var dir = new TestDirectory("model");
        var options = new StorageOptions(dir.Path) { FlushThresholdBytes = 256 << 10 };
        var committed = NewModel();
        var pending = Clone(committed);
        var env = StorageEnvironment.Open(options);
        WriteTransaction? tx = null;
        long version = 0;
        try
        {
            foreach (var op in sequence)
            {
                switch (op.Kind)
                {
                    case Kind.Put:
                    {
                        var value = Bytes.Value(++version, op.ValueLength);
                        (tx ??= env.BeginWrite()).CreateTree(TreeName(op.Tree)).Put(op.Key, value);
                        pending[op.Tree][op.Key] = value;
                        break;
                    }
                    case Kind.Delete:
                    {
                        bool existed = (tx ??= env.BeginWrite()).CreateTree(TreeName(op.Tree)).Delete(op.Key);
                        Assert.Equal(pending[op.Tree].Remove(op.Key), existed);
                        break;
                    }
                    case Kind.Get:
                        CheckGet(env, tx, tx is null ? committed : pending, op);
                        break;
                    case Kind.Range:
                        CheckRange(env, tx, tx is null ? committed : pending, op);
                        break;
                    case Kind.Commit:
                        if (tx is not null)
                        {
                            tx.Commit();
                            tx = null;
                            committed = Clone(pending);
                            CheckAll(env, committed);
                            env.Verify();
                        }
                        break;
                    case Kind.Abort:
                        tx?.Dispose();
                        tx = null;
                        pending = Clone(committed);
                        break;
                    case Kind.Reopen:
                        tx?.Dispose();
                        tx = null;
                        pending = Clone(committed);
                        env.Dispose();
                        env = StorageEnvironment.Open(options);
                        CheckAll(env, committed);
                        env.Verify();
                        break;
                }
            }
            tx?.Commit();
            tx = null;
            CheckAll(env, pending);
            env.Verify();
        }
        finally
        {
            tx?.Dispose();
            env.Dispose();
        }
    }

    private static void CheckGet(StorageEnvironment env, WriteTransaction? tx, SortedDictionary<byte[], byte[]>[] model, Op op)
    {
        using var read = tx is null ? env.BeginRead() : null;
        var source = (ReadTransaction?)tx ?? read!;
        bool found = source.TryOpenTree(TreeName(op.Tree), out var tree) && tree.TryGet(op.Key, out var value) && Same(value, model[op.Tree], op.Key);
        Assert.Equal(model[op.Tree].ContainsKey(op.Key), found);
    }

    private static bool Same(ReadOnlySpan<byte> value, SortedDictionary<byte[], byte[]> model, byte[] key)
    {
        Assert.True(model.TryGetValue(key, out var expected), $"engine has {Convert.ToHexString(key)}, model does not");
        Assert.True(value.SequenceEqual(expected), $"value of {Convert.ToHexString(key)} differs");
        return true;
    }

    private static void CheckRange(StorageEnvironment env, WriteTransaction? tx, SortedDictionary<byte[], byte[]>[] model, Op op)
    {
        using var read = tx is null ? env.BeginRead() : null;
        var source = (ReadTransaction?)tx ?? read!;
        var expected = op.Reverse
            ? model[op.Tree].Keys.Where(k => ByteArrayComparer.Instance.Compare(k, op.Key) <= 0).Reverse().Take(30).ToList()
            : model[op.Tree].Keys.Where(k => ByteArrayComparer.Instance.Compare(k, op.Key) >= 0).Take(30).ToList();
        var actual = new List<byte[]>();
        if (source.TryOpenTree(TreeName(op.Tree), out var tree))
        {
            using var cursor = tree.CreateCursor();
            bool more = op.Reverse ? cursor.SeekAtOrBefore(op.Key) : cursor.Seek(op.Key);
            while (more && actual.Count < 30)
            {
                actual.Add(cursor.Key.ToArray());
                Assert.True(cursor.Value.SequenceEqual(model[op.Tree][actual[^1]]));
                more = op.Reverse ? cursor.MovePrevious() : cursor.MoveNext();
            }
        }
        Assert.Equal(expected.Select(Convert.ToHexString), actual.Select(Convert.ToHexString));
    }

    private static void CheckAll(StorageEnvironment env, SortedDictionary<byte[], byte[]>[] model)
    {
        using var read = env.BeginRead();
        for (int t = 0; t < Trees; t++)
        {
            if (!read.TryOpenTree(TreeName(t), out var tree))
            {
                Assert.Empty(model[t]);
                continue;
            }
            Assert.Equal(model[t].Count, tree.Count);
            using var cursor = tree.CreateCursor();
            var keys = new List<string>();
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
            {
                keys.Add(Convert.ToHexString(cursor.Key));
                Assert.True(cursor.Value.SequenceEqual(model[t][cursor.Key.ToArray()]));
            }
            Assert.Equal(model[t].Keys.Select(Convert.ToHexString), keys);
            var backwards = new List<string>();
            for (bool more = cursor.SeekLast(); more; more = cursor.MovePrevious())
                backwards.Add(Convert.ToHexString(cursor.Key));
            backwards.Reverse();
            Assert.Equal(keys, backwards);
        }
    }

    private static string TreeName(int tree) => $"tree-{tree}";

    private static SortedDictionary<byte[], byte[]>[] NewModel()
        => Enumerable.Range(0, Trees).Select(_ => new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance)).ToArray();

    private static SortedDictionary<byte[], byte[]>[] Clone(SortedDictionary<byte[], byte[]>[] model)
        => model.Select(m => new SortedDictionary<byte[], byte[]>(m, ByteArrayComparer.Instance)).ToArray();
}
