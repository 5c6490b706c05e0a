using System.Reflection;
using Cairn.Hashing;
using Bcl = System.IO.Hashing;

namespace Cairn.Tests.Hashing;

/// <summary>
/// Cairn's own XXH3 (<see cref="Xxh3"/>) against System.IO.Hashing's <c>XxHash3.HashToUInt64</c>, which
/// <see cref="ChecksumsTests"/> pins to the reference C library: every length through 4,200 (each short path, the
/// mid-size path, and the long path's stripes, blocks of 1,024 bytes and last stripe several times over), a few
/// large inputs, seeds that take the default secret (0) and derived ones (high bits set included), unaligned
/// starts, and each long-input kernel this machine runs (the scalar one always).
/// </summary>
public unsafe class Xxh3Tests
{
    private static readonly ulong[] s_seeds = [0, 1, 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, ulong.MaxValue, 0x9E37_79B1_85EB_CA87];

    /// <summary>The kernels this machine runs, by name (the enum is internal to the engine).</summary>
    public static TheoryData<string> Kernels()
    {
        var kernels = new TheoryData<string>();
        foreach (Xxh3Kernel kernel in Enum.GetValues<Xxh3Kernel>())
        {
            if (Xxh3Long.IsSupported(kernel))
                kernels.Add(kernel.ToString());
        }
        return kernels;
    }

    [Theory]
    [MemberData(nameof(Kernels))]
    public void Matches_System_IO_Hashing_for_every_length_up_to_4200(string kernelName)
    {
        var kernel = Enum.Parse<Xxh3Kernel>(kernelName);
        const int MaxLength = 4200;
        var random = new Random(20261129);
        byte[] buffer = new byte[MaxLength + 64];
        random.NextBytes(buffer);
        int compared = 0;
        fixed (byte* pointer = buffer)
        {
            for (int length = 0; length <= MaxLength; length++)
            {
                int start = length % 64; // every misalignment, each length at a different one
                foreach (ulong seed in s_seeds)
                {
                    AssertSame(pointer + start, length, seed, kernel);
                    compared++;
                }
                AssertSame(pointer + start, length, (ulong)random.NextInt64() | ((ulong)random.Next(2) << 63), kernel);
                compared++;
            }
        }
        Assert.Equal((MaxLength + 1) * (s_seeds.Length + 1), compared);
    }

    [Theory]
    [MemberData(nameof(Kernels))]
    public void Matches_System_IO_Hashing_for_large_inputs(string kernelName)
    {
        var kernel = Enum.Parse<Xxh3Kernel>(kernelName);
        int[] lengths = [64 << 10, (64 << 10) - 16, (1 << 20) + 3, 1 << 20];
        byte[] buffer = new byte[(1 << 20) + 3 + 8];
        new Random(7).NextBytes(buffer);
        fixed (byte* pointer = buffer)
        {
            foreach (int length in lengths)
            {
                foreach (ulong seed in s_seeds)
                {
                    AssertSame(pointer, length, seed, kernel);
                    AssertSame(pointer + 5, length, seed, kernel);
                }
            }
        }
    }

    /// <summary>
    /// A stripe's lanes, its neighbour swap and the last stripe's overlap are where a vector kernel can go wrong
    /// without the short paths noticing: one changed byte anywhere in a long input must change the hash, as it does
    /// System.IO.Hashing's (each position is compared, not only "it changed").
    /// </summary>
    [Theory]
    [MemberData(nameof(Kernels))]
    public void Every_byte_of_a_long_input_counts(string kernelName)
    {
        var kernel = Enum.Parse<Xxh3Kernel>(kernelName);
        byte[] buffer = new byte[2113]; // two blocks, a partial one and a last stripe that overlaps it
        new Random(3).NextBytes(buffer);
        fixed (byte* pointer = buffer)
        {
            ulong unchanged = Xxh3.Hash64(pointer, (nuint)buffer.Length, 42, kernel);
            for (int position = 0; position < buffer.Length; position++)
            {
                buffer[position] ^= 0x80;
                ulong changed = AssertSame(pointer, buffer.Length, 42, kernel);
                Assert.NotEqual(unchanged, changed);
                buffer[position] ^= 0x80;
            }
        }
    }

    [Fact]
    public void The_published_empty_input_vector_matches()
    {
        foreach (Xxh3Kernel kernel in Enum.GetValues<Xxh3Kernel>().Where(Xxh3Long.IsSupported))
            Assert.Equal(0x2D06800538D394C2UL, Xxh3.Hash64((byte*)0, 0, 0, kernel));
        Assert.Equal(0x2D06800538D394C2UL, Xxh3.Hash64((byte*)0, 0, 0));
    }

    /// <summary>The mid-size path's secret words are literals; each must be the default secret's word at its offset.</summary>
    [Fact]
    public void The_secret_words_are_the_default_secret_s()
    {
        // The first 128 bytes' words, pieces 8-14's (from byte 3), the last piece's (from byte 119).
        var offsets = Enumerable.Range(0, 16).Select(i => 8 * i)
            .Concat(Enumerable.Range(0, 7).SelectMany(i => new[] { 16 * i + 3, 16 * i + 11 }))
            .Concat([119, 127]);
        foreach (int offset in offsets)
            Assert.Equal(Xxh3.Read64(Xxh3Constants.DefaultSecret + offset), Xxh3Constants.SecretWord(offset));
        Assert.Throws<ArgumentOutOfRangeException>(() => Xxh3Constants.SecretWord(1));
    }

    /// <summary>The production entry point takes the fastest kernel; it must agree with each kernel on its own.</summary>
    [Fact]
    public void The_default_entry_point_matches_every_kernel()
    {
        byte[] buffer = new byte[9000];
        new Random(11).NextBytes(buffer);
        fixed (byte* pointer = buffer)
        {
            foreach (int length in new[] { 241, 1024, 1025, 8176, 9000 })
            {
                ulong expected = Xxh3.Hash64(pointer, (nuint)length, 123_457);
                foreach (Xxh3Kernel kernel in Enum.GetValues<Xxh3Kernel>().Where(Xxh3Long.IsSupported))
                    Assert.Equal(expected, Xxh3.Hash64(pointer, (nuint)length, 123_457, kernel));
            }
        }
        Assert.True(Xxh3Long.IsSupported(Xxh3Long.BestKernel));
        Assert.True(Xxh3Long.IsSupported(Xxh3Kernel.Scalar));
    }

    /// <summary>
    /// The reason Cairn has its own XXH3: none of it may run as tier-0 code in a young process. Every method is
    /// compiled optimised at its first call, the helpers too (inlined where the JIT agrees, optimised where it does not).
    /// </summary>
    [Fact]
    public void No_method_of_the_hash_waits_for_tiered_compilation()
    {
        Type[] types = [typeof(Xxh3), typeof(Xxh3Constants), typeof(Xxh3Long), typeof(Xxh3Scalar), typeof(Xxh3Vector256), typeof(Xxh3Vector128)];
        var methods = types
            .SelectMany(type => type.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.DeclaredOnly))
            .Append(typeof(Checksums).GetMethod(nameof(Checksums.Compute), [typeof(ReadOnlySpan<byte>), typeof(ulong)])!)
            .Append(typeof(Checksums).GetMethod(nameof(Checksums.Compute), [typeof(byte*), typeof(long), typeof(ulong)])!)
            .ToList();
        Assert.True(methods.Count > 20, $"only {methods.Count} methods found");
        var tiered = methods
            .Where(method => (method.MethodImplementationFlags & MethodImplAttributes.AggressiveOptimization) == 0)
            .Select(method => $"{method.DeclaringType!.Name}.{method.Name}")
            .ToList();
        Assert.True(tiered.Count == 0, "tier-0 in a young process: " + string.Join(", ", tiered));
    }

    [Fact]
    public void A_kernel_this_machine_cannot_run_is_refused()
    {
        byte[] buffer = new byte[300];
        var kernels = Enum.GetValues<Xxh3Kernel>().Where(kernel => !Xxh3Long.IsSupported(kernel)).Append((Xxh3Kernel)99).ToList();
        foreach (Xxh3Kernel kernel in kernels)
        {
            var refused = Assert.Throws<PlatformNotSupportedException>(() =>
            {
                fixed (byte* pointer = buffer)
                    Xxh3.Hash64(pointer, (nuint)buffer.Length, 0, kernel);
            });
            Assert.Contains(kernel.ToString(), refused.Message);
        }
    }

    private static ulong AssertSame(byte* data, int length, ulong seed, Xxh3Kernel kernel)
    {
        ulong expected = Bcl.XxHash3.HashToUInt64(new ReadOnlySpan<byte>(data, length), unchecked((long)seed));
        ulong actual = Xxh3.Hash64(data, (nuint)length, seed, kernel);
        if (actual != expected)
            Assert.Fail($"kernel {kernel}, length {length}, seed 0x{seed:X16}: 0x{actual:X16}, System.IO.Hashing 0x{expected:X16}");
        return actual;
    }
}
