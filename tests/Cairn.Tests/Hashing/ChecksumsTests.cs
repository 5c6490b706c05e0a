using System.Runtime.InteropServices;
using Cairn.Hashing;
using Cairn.Tests.Support;
using FsCheck;
using FsCheck.Fluent;
using FsCheck.Xunit;

namespace Cairn.Tests.Hashing;

/// <summary>
/// Pins the checksum Cairn writes (<see cref="Checksums"/>: XXH3, 64-bit, Cairn's own <see cref="Xxh3"/>) to the
/// reference C library's <c>XXH3_64bits_withSeed</c>, and the checksum of format version 1 (XXH64, read only to
/// recognise such files) to its <c>XXH64</c>: a checksum that drifted from them would be a silent change of
/// the on-disk format.
/// </summary>
public unsafe class ChecksumsTests
{
    /// <summary>XXH3 of the empty input (xxhash.h documents it); the rest is checked against the library itself.</summary>
    [Fact]
    public void The_published_vector_matches()
    {
        const ulong emptyInput = 0x2D06800538D394C2UL;
        Assert.Equal(emptyInput, Checksums.Compute([], seed: 0));
        Assert.Equal(emptyInput, Checksums.Compute((byte*)0, 0, seed: 0));
        Assert.Equal(emptyInput, Reference([], seed: 0));
    }

    /// <summary>
    /// Every length up to 300 crosses each input-size class of XXH3 (0, 1–3, 4–8, 9–16, 17–128, 129–240, then
    /// 64-byte stripes) many times; random start offsets make the reads unaligned.
    /// </summary>
    [Fact]
    public void Matches_the_reference_for_every_length_up_to_300()
    {
        var random = new Random(20261121);
        byte[] buffer = new byte[300 + 16];
        int checkedInputs = 0;
        for (int length = 0; length <= 300; length++)
        {
            for (int sample = 0; sample < 24; sample++)
            {
                random.NextBytes(buffer);
                int start = random.Next(16);
                ulong seed = sample switch { 0 => 0, 1 => ulong.MaxValue, _ => (ulong)random.NextInt64() ^ ((ulong)random.Next() << 63) };
                AssertSameAsReference(new ReadOnlySpan<byte>(buffer, start, length), seed);
                checkedInputs++;
            }
        }
        Assert.Equal(301 * 24, checkedInputs);
    }

    /// <summary>Past 240 bytes XXH3 works in 64-byte stripes and 1,024-byte blocks: every length up to 2,100 crosses both.</summary>
    [Fact]
    public void Matches_the_reference_for_every_length_up_to_2100()
    {
        var random = new Random(20261125);
        byte[] buffer = new byte[2100 + 64];
        random.NextBytes(buffer);
        for (int length = 0; length <= 2100; length++)
        {
            int start = random.Next(64);
            AssertSameAsReference(new ReadOnlySpan<byte>(buffer, start, length), (ulong)random.NextInt64());
        }
    }

    [Theory]
    [InlineData(8192)]
    [InlineData(8192 - 16)] // a page's checksummed range
    [InlineData(1 << 20)]
    [InlineData((1 << 20) + 31)]
    public void Matches_the_reference_for_large_inputs(int length)
    {
        var random = new Random(length);
        byte[] data = new byte[length];
        for (int round = 0; round < 8; round++)
        {
            random.NextBytes(data);
            AssertSameAsReference(data, (ulong)random.NextInt64());
        }
    }

    /// <summary>
    /// Seed 0 takes XXH3's unseeded path (its default secret, not one derived from the seed); the others are
    /// the extremes of the seed's signed conversion (System.IO.Hashing takes a long, Cairn passes a ulong).
    /// </summary>
    [Theory]
    [InlineData(0UL)]
    [InlineData(1UL)]
    [InlineData(0x7FFFFFFFFFFFFFFFUL)]
    [InlineData(0x8000000000000000UL)]
    [InlineData(ulong.MaxValue)]
    public void Matches_the_reference_for_edge_seeds(ulong seed)
    {
        byte[] data = new byte[1100];
        new Random(1).NextBytes(data);
        for (int length = 0; length <= data.Length; length += length < 300 ? 1 : 61)
            AssertSameAsReference(data.AsSpan(0, length), seed);
    }

    [Property(MaxTest = 2000)]
    public bool Matches_the_reference_for_arbitrary_inputs_and_seeds(byte[] data, ulong seed)
        => Checksums.Compute(data, seed) == Reference(data, seed);

    /// <summary>
    /// Bytes that arrive in pieces (<see cref="IncrementalChecksum"/>, System.IO.Hashing's incremental hasher) give the
    /// one-shot hash of the pieces joined: small pieces here cross every boundary of the algorithm at every offset.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(32)]
    [InlineData(100)]
    [InlineData(1024)]
    public void Hashing_in_pieces_matches_the_reference(int chunkLength)
    {
        var random = new Random(chunkLength);
        byte[] data = new byte[3000];
        random.NextBytes(data);
        for (int length = 0; length <= data.Length; length += 1 + length / 8)
        {
            ulong seed = (ulong)random.NextInt64();
            var pieces = new IncrementalChecksum(seed);
            for (int offset = 0; offset < length; offset += chunkLength)
                pieces.Append(data.AsSpan(offset, Math.Min(chunkLength, length - offset)));
            ulong expected = Reference(data.AsSpan(0, length), seed);
            Assert.Equal(expected, pieces.Current);
            Assert.Equal(expected, Checksums.Compute(data.AsSpan(0, length), seed));
        }
    }

    /// <summary>An input longer than any span (a journal payload over 2 GiB) is hashed whole in one call, as the reference does.</summary>
    [Fact]
    public void An_input_over_2_GiB_is_hashed_whole()
    {
        long length = (long)int.MaxValue + 4097;
        byte* data = (byte*)NativeMemory.Alloc((nuint)length);
        try
        {
            for (long offset = 0; offset < length; offset += 1 << 20)
                new Span<byte>(data + offset, (int)Math.Min(1 << 20, length - offset)).Fill((byte)(offset >> 20));
            data[length - 1] = 0xA5;
            Assert.Equal(Reference(data, length, 0x1234_5678_9ABC_DEF0), Checksums.Compute(data, length, 0x1234_5678_9ABC_DEF0));
        }
        finally
        {
            NativeMemory.Free(data);
        }
    }

    /// <summary>Measured in a test child of its own (<see cref="IsolatedAllocation"/>).</summary>
    [Fact]
    public void Hashing_allocates_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(HashingProbe));

    internal static long HashingProbe()
    {
        byte[] data = new byte[8192];
        ulong sink = 0;
        void HashBoth()
        {
            for (int length = 0; length < 100; length++)
                sink ^= Checksums.Compute(data.AsSpan(0, length * 81), (ulong)length);
            fixed (byte* pointer = data)
                sink ^= Checksums.Compute(pointer, data.Length, 7);
        }
        HashBoth(); // warm up
        long allocated = SteadyStateAllocation.Measure(HashBoth);
        GC.KeepAlive(sink);
        return allocated;
    }

    [Fact]
    public void A_negative_length_is_refused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Checksums.Compute((byte*)0, -1, 0));
    }

    [Theory]
    [InlineData("", 0xEF46DB3751D8E999UL)]
    [InlineData("a", 0xD24EC4F1A98C6E5BUL)]
    [InlineData("abc", 0x44BC2CF5AD770999UL)]
    public void The_format_version_1_checksum_matches_the_published_XXH64_vectors(string text, ulong expected)
    {
        byte[] data = System.Text.Encoding.ASCII.GetBytes(text);
        Assert.Equal(expected, Checksums.ComputeFormatVersion1(data, seed: 0));
        Assert.Equal(expected, ReferenceXxHash.Xxh64(data, seed: 0));
    }

    [Fact]
    public void The_format_version_1_checksum_matches_the_reference_XXH64()
    {
        var random = new Random(20261121);
        byte[] buffer = new byte[300 + 16];
        for (int length = 0; length <= 300; length++)
        {
            random.NextBytes(buffer);
            var data = new ReadOnlySpan<byte>(buffer, random.Next(16), length);
            ulong seed = (ulong)random.NextInt64();
            Assert.Equal(ReferenceXxHash.Xxh64(data, seed), Checksums.ComputeFormatVersion1(data, seed));
        }
    }

    /// <summary>What the reference library computes for the checksum Cairn writes.</summary>
    private static ulong Reference(ReadOnlySpan<byte> data, ulong seed) => ReferenceXxHash.Xxh3(data, seed);

    private static ulong Reference(byte* data, long length, ulong seed) => ReferenceXxHash.Xxh3(data, length, seed);

    private static void AssertSameAsReference(ReadOnlySpan<byte> data, ulong seed)
    {
        ulong expected = Reference(data, seed);
        Assert.Equal(expected, Checksums.Compute(data, seed));
        fixed (byte* pointer = data)
            Assert.Equal(expected, Checksums.Compute(pointer, data.Length, seed));
    }
}
