using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Cairn.Hashing;
using Bcl = System.IO.Hashing;

namespace Cairn.Bench.Hashing;

/// <summary>
/// Checksumming what Cairn checksums (<see cref="HashInput"/>: a page, or a 4 KiB-aligned journal
/// entry's payload and header): Cairn's own call (<see cref="Checksums"/>), System.IO.Hashing's XxHash64
/// (the baseline) and XxHash3 (64-bit), and the reference C library (Debian's libxxhash0, the build of
/// xxHash a C engine would link) for both algorithms, so a ratio also reads "times the cost of the C
/// code". GB/s is bytes hashed over Mean. Every case must allocate nothing. The hand-written XXH64
/// these replaced was measured with the same cases (docs/benchmarks.md, "Checksums").
/// </summary>
[MemoryDiagnoser]
[Config(typeof(HashConfig))]
[SimpleJob(launchCount: 1, warmupCount: 5, iterationCount: 15)]
public unsafe class HashBenchmarks
{
    private byte* _buffer;

    [Params(HashInput.Page8K, HashInput.Entry4K, HashInput.Entry64K, HashInput.Entry1M)]
    public HashInput Input { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        int size = HashInputs.BufferSize(Input);
        _buffer = (byte*)NativeMemory.AlignedAlloc((nuint)size, 4096);
        new Random(42).NextBytes(new Span<byte>(_buffer, size));
    }

    [GlobalCleanup]
    public void Cleanup() => NativeMemory.AlignedFree(_buffer);

    [Benchmark(Description = "Cairn Checksums")]
    public ulong CairnChecksum() => HashInputs.Hash<CairnChecksums>(_buffer, Input);

    [Benchmark(Baseline = true, Description = "System.IO.Hashing XxHash64")]
    public ulong BclXxHash64() => HashInputs.Hash<BclXxh64>(_buffer, Input);

    [Benchmark(Description = "System.IO.Hashing XxHash3")]
    public ulong BclXxHash3() => HashInputs.Hash<BclXxh3>(_buffer, Input);

    [Benchmark(Description = "libxxhash XXH64")]
    public ulong ReferenceXxh64() => HashInputs.Hash<LibXxh64>(_buffer, Input);

    [Benchmark(Description = "libxxhash XXH3_64bits_withSeed")]
    public ulong ReferenceXxh3() => HashInputs.Hash<LibXxh3>(_buffer, Input);

    private readonly struct CairnChecksums : IHash64
    {
        public static ulong Hash(byte* data, long length, ulong seed) => Checksums.Compute(data, length, seed);
    }

    private readonly struct BclXxh64 : IHash64
    {
        public static ulong Hash(byte* data, long length, ulong seed)
            => Bcl.XxHash64.HashToUInt64(new ReadOnlySpan<byte>(data, checked((int)length)), unchecked((long)seed));
    }

    private readonly struct BclXxh3 : IHash64
    {
        public static ulong Hash(byte* data, long length, ulong seed)
            => Bcl.XxHash3.HashToUInt64(new ReadOnlySpan<byte>(data, checked((int)length)), unchecked((long)seed));
    }

    private readonly struct LibXxh64 : IHash64
    {
        public static ulong Hash(byte* data, long length, ulong seed) => LibXxHash.Xxh64(data, (nuint)length, seed);
    }

    private readonly struct LibXxh3 : IHash64
    {
        public static ulong Hash(byte* data, long length, ulong seed) => LibXxHash.Xxh3WithSeed(data, (nuint)length, seed);
    }
}

/// <summary>Adds GB/s to <see cref="HashBenchmarks"/>.</summary>
public sealed class HashConfig : ManualConfig
{
    public HashConfig() => AddColumn(new HashThroughputColumn());
}

/// <summary>Debian's libxxhash0 (xxHash 0.8), as a C engine would call it.</summary>
internal static unsafe partial class LibXxHash
{
    private const string Library = "libxxhash.so.0";

    // No GC transition: the calls are short and never block, so the measurement is the hash itself.
    [LibraryImport(Library, EntryPoint = "XXH64")]
    [SuppressGCTransition]
    public static partial ulong Xxh64(byte* data, nuint length, ulong seed);

    [LibraryImport(Library, EntryPoint = "XXH3_64bits_withSeed")]
    [SuppressGCTransition]
    public static partial ulong Xxh3WithSeed(byte* data, nuint length, ulong seed);
}
