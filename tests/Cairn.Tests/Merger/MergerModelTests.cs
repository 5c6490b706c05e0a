using Cairn.Tests.Support;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Merger;

/// <summary>
/// Model-based test of the merger: several concurrent callers, each with a random sequence of puts,
/// deletes, reads and operations that throw, over its own part of the key space. Each caller's
/// operations take effect in its order, so a per-caller sorted dictionary predicts every read inside an
/// operation and the final contents; a throwing operation must leave no trace, and after a simulated
/// crash every acknowledged operation must still be there. FsCheck shrinks a failure to short sequences.
/// </summary>
public class MergerModelTests
{
    public enum Kind { Put, Delete, Read, Throw }

    public sealed record Op(Kind Kind, int Key, int ValueLength)
    {
        public override string ToString() => Kind switch
        {
            Kind.Put => $"Put({Key}, {ValueLength}B)",
            Kind.Throw => $"PutThenThrow({Key})",
            _ => $"{Kind}({Key})",
        };
    }

    private const string TreeName = "model";

    private static readonly Gen<Op> OpGen = Gen.Frequency(
        (10, Gen.Choose(0, 60).SelectMany(k => Gen.Frequency((8, Gen.Choose(0, 200)), (1, Gen.Choose(3000, 20_000))).Select(v => new Op(Kind.Put, k, v)))),
        (4, Gen.Choose(0, 60).Select(k => new Op(Kind.Delete, k, 0))),
        (4, Gen.Choose(0, 60).Select(k => new Op(Kind.Read, k, 0))),
        (2, Gen.Choose(0, 60).Select(k => new Op(Kind.Throw, k, 50))));

    [Fact]
    public void Concurrent_callers_match_their_models()
    {
        var callers = Gen.Choose(1, 8).SelectMany(n => Gen.ArrayOf(Gen.Sized(size => Gen.Choose(0, size * 3).SelectMany(m => Gen.ArrayOf(OpGen, m))), n));
        var property = Prop.ForAll(Arb.From(callers, Shrink), (Op[][] sequences) => Run(sequences));
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(40).WithEndSize(40), property);
    }

    /// <summary>Drops callers, then halves, quarters … of one caller's operations.</summary>
    private static IEnumerable<Op[][]> Shrink(Op[][] callers)
    {
        if (callers.Length > 1)
            for (int c = 0; c < callers.Length; c++)
                yield return [.. callers[..c], .. callers[(c + 1)..]];
        for (int c = 0; c < callers.Length; c++)
        {
            var ops = callers[c];
            for (int chunk = ops.Length / 2; chunk >= 1; chunk /= 2)
                for (int start = 0; start + chunk <= ops.Length; start += chunk)
                {
                    var copy = (Op[][])callers.Clone();
                    copy[c] = [.. ops[..start], .. ops[(start + chunk)..]];
                    yield return copy;
                }
        }
    }

    private static byte[] Key(int caller, int key) => Bytes.Key(caller * 1_000 + key);

    private static byte[] Value(int caller, int step, int length) => Bytes.Value(caller * 100_000 + step, length);

    private static void Run(Op[][] callers)
    {
        using var dir = new TestDirectory("merger-model");
        var options = new StorageOptions(dir.Path) { MergerMaxTransactionBytes = 64 << 10 };
        var models = callers.Select(_ => new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance)).ToArray();
        var env = StorageEnvironment.Open(options);
        try
        {
            var tasks = callers.Select((ops, c) => Task.Run(async () =>
            {
                var model = models[c];
                for (int step = 0; step < ops.Length; step++)
                {
                    var op = ops[step];
                    var key = Key(c, op.Key);
                    switch (op.Kind)
                    {
                        case Kind.Put:
                            var value = Value(c, step, op.ValueLength);
                            await env.WriteAsync((key, value), static (tx, s) => tx.CreateTree(TreeName).Put(s.key, s.value));
                            model[key] = value;
                            break;
                        case Kind.Delete:
                            bool deleted = await env.WriteAsync(key, static (tx, k) => tx.CreateTree(TreeName).Delete(k));
                            if (deleted != model.Remove(key))
                                throw new InvalidOperationException($"caller {c} step {step} {op}: Delete returned {deleted}");
                            break;
                        case Kind.Read:
                            var read = await env.WriteAsync(key, static (tx, k) => tx.CreateTree(TreeName).Get(k));
                            model.TryGetValue(key, out var expected);
                            if (!(read is null ? expected is null : expected is not null && read.AsSpan().SequenceEqual(expected)))
                                throw new InvalidOperationException($"caller {c} step {step} {op}: read {read?.Length.ToString() ?? "nothing"}, model has {expected?.Length.ToString() ?? "nothing"}");
                            break;
                        case Kind.Throw:
                            try
                            {
                                await env.WriteAsync((key, Value(c, step, op.ValueLength)), static (tx, s) =>
                                {
                                    tx.CreateTree(TreeName).Put(s.Item1, s.Item2);
                                    throw new ArithmeticException("thrown on purpose");
                                });
                                throw new InvalidOperationException($"caller {c} step {step} {op}: the throwing operation succeeded");
                            }
                            catch (ArithmeticException)
                            {
                            }
                            break;
                    }
                }
            })).ToArray();
            Task.WhenAll(tasks).GetAwaiter().GetResult();
            AssertMatches(env, models, "after the run");
            env.Verify();
            env.ForTestingPurposesOnly().SimulateProcessCrash(); // everything acknowledged must come back from the journal
            env = StorageEnvironment.Open(options);
            AssertMatches(env, models, "after a crash and reopen");
            env.Verify();
        }
        finally
        {
            env.Dispose();
        }
    }

    private static void AssertMatches(StorageEnvironment env, SortedDictionary<byte[], byte[]>[] models, string when)
    {
        var expected = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        foreach (var model in models)
            foreach (var (k, v) in model)
                expected[k] = v;
        using var tx = env.BeginRead();
        if (!tx.TryOpenTree(TreeName, out var tree))
        {
            if (expected.Count != 0)
                throw new InvalidOperationException($"{when}: the tree is missing, the model has {expected.Count} keys");
            return;
        }
        if (tree.Count != expected.Count)
            throw new InvalidOperationException($"{when}: {tree.Count} keys, the model has {expected.Count}");
        var cursor = tree.CreateCursor();
        foreach (var (k, v) in expected)
        {
            var actual = tree.Get(k);
            if (actual is null || !actual.AsSpan().SequenceEqual(v))
                throw new InvalidOperationException($"{when}: key {Convert.ToHexString(k)} is {(actual is null ? "missing" : $"{actual.Length} bytes")}, the model has {v.Length} bytes");
        }
    }
}
