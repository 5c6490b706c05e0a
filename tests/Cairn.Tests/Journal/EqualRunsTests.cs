using Cairn.Journal;
using FsCheck;
using FsCheck.Fluent;
using FsCheck.Xunit;

namespace Cairn.Tests.Journal;

/// <summary>The vectorised run search agrees with a byte-by-byte reference and never reads past its end.</summary>
public unsafe class EqualRunsTests
{
    private static int Reference(byte[] data, int start, int end, int minimum, bool runToEndCounts)
    {
        for (int i = start; i < end; i++)
        {
            if (data[i] != 0 || (i > start && data[i - 1] == 0))
                continue; // only maximal runs (within [start, end)) start here
            int run = 0;
            while (i + run < end && data[i + run] == 0)
                run++;
            if (run >= minimum || (runToEndCounts && i + run == end))
                return i;
        }
        return end;
    }

    /// <param name="minimumExponent">The run length searched for is 1, 2, 4, 8 or 16.</param>
    [Property(MaxTest = 2000)]
    public void Equal_runs_of_two_buffers_are_zero_runs_of_their_xor(int seed, byte minimumExponent, bool toEnd)
    {
        int minimum = 1 << (minimumExponent % 5);
        var random = new Random(seed);
        var a = new byte[random.Next(0, 700)];
        random.NextBytes(a);
        var b = (byte[])a.Clone();
        for (int i = random.Next(0, 60); i > 0 && b.Length > 0; i--)
        {
            int at = random.Next(b.Length);
            int length = Math.Min(random.Next(1, 12), b.Length - at);
            random.NextBytes(b.AsSpan(at, length));
        }
        var xor = a.Zip(b, (x, y) => (byte)(x ^ y)).ToArray();
        int start = a.Length == 0 ? 0 : random.Next(a.Length);
        int actual;
        fixed (byte* pa = a)
        fixed (byte* pb = b)
        {
            actual = EqualRuns.Find(pa, pb, start, a.Length, minimum, toEnd);
            int first = EqualRuns.FirstDifference(pa, pb, start, a.Length);
            Assert.Equal(Array.FindIndex(xor, start, x => x != 0), first);
        }
        Assert.Equal(Reference(xor, start, a.Length, minimum, toEnd), actual);
    }

    [Fact]
    public void Agrees_with_the_byte_by_byte_reference()
    {
        // Mostly non-zero bytes with zero runs of all lengths, so runs straddle the 64-byte blocks.
        var bytes = Gen.Frequency((3, Gen.Choose(1, 255).Select(b => (byte)b)), (2, Gen.Constant((byte)0)));
        var runs = Gen.Choose(0, 12).SelectMany(len => bytes.Select(b => Enumerable.Repeat(b, b == 0 ? len : 1 + len % 3).ToArray()));
        var data = Gen.ArrayOf(runs).Select(chunks => chunks.SelectMany(c => c).ToArray());
        var property = Prop.ForAll(Arb.From(data), Arb.From(Gen.Choose(0, 1000)), Arb.From(Gen.Elements(1, 2, 4, 8, 16).SelectMany(m => Gen.Elements(true, false).Select(e => (m, e)))),
            (byte[] array, int startSeed, (int Minimum, bool ToEnd) search) =>
            {
                var (minimum, toEnd) = search;
                int start = array.Length == 0 ? 0 : startSeed % array.Length;
                int end = array.Length;
                // Guard bytes after the end would be found if the search read them.
                var padded = array.Concat(new byte[64]).ToArray();
                int actual;
                fixed (byte* p = padded)
                    actual = EqualRuns.Find(p, null, start, end, minimum, toEnd);
                Assert.Equal(Reference(array, start, end, minimum, toEnd), actual);
            });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(3000).WithEndSize(400), property);
    }
}
