using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using Cairn.Hashing;
using Cairn.Paging;

namespace Cairn.Bench;

/// <summary>
/// Checksumming one page: Cairn's XXH64 against the reference C library (Debian's libxxhash0, the
/// build of xxHash a C engine would link), so the ratio reads "times the cost of the C code".
/// </summary>
[MemoryDiagnoser]
public unsafe partial class HashBenchmarks
{
    private byte* _page;

    [GlobalSetup]
    public void Setup()
    {
        _page = (byte*)NativeMemory.AlignedAlloc(StorageConstants.PageSize, 4096);
        new Random(42).NextBytes(new Span<byte>(_page, StorageConstants.PageSize));
    }

    [GlobalCleanup]
    public void Cleanup() => NativeMemory.AlignedFree(_page);

    [Benchmark(Baseline = true, Description = "libxxhash XXH64, 8 KiB")]
    public ulong Reference() => ReferenceXxh64(_page, StorageConstants.PageSize, 17);

    [Benchmark(Description = "Cairn XxHash64 (pointer), 8 KiB")]
    public ulong CairnPointer() => XxHash64.Hash(_page, StorageConstants.PageSize, 17);

    [Benchmark(Description = "Cairn XxHash64 (span), 8 KiB")]
    public ulong CairnSpan() => XxHash64.Hash(new ReadOnlySpan<byte>(_page, StorageConstants.PageSize), 17);

    // No GC transition: the call is short and never blocks, so the measurement is the hash itself.
    [LibraryImport("libxxhash.so.0", EntryPoint = "XXH64")]
    [SuppressGCTransition]
    private static partial ulong ReferenceXxh64(byte* data, nuint length, ulong seed);
}
