using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using Cairn.Pal;

namespace Cairn.Bench;

/// <summary>
/// What one durable journal write costs on this disk, and what the journal's design choices buy:
/// O_DIRECT|O_DSYNC against write+fdatasync, and pre-zeroed files against merely fallocated ones
/// (whose unwritten extents ext4 converts inside every write). The baseline is the journal's own
/// mode, so the ratios read "times slower than what Cairn does".
/// </summary>
[MemoryDiagnoser]
[SimpleJob(launchCount: 1, warmupCount: 3, iterationCount: 12)]
public unsafe class DurableWriteBenchmarks
{
    private const long FileSize = 64L << 20;

    private string _directory = null!;
    private byte* _buffer;
    private Target _directZeroed = null!, _directFallocated = null!, _bufferedZeroed = null!, _bufferedFallocated = null!;

    [Params(4096, 262144)]
    public int WriteSize { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _directory = BenchScratch.Directory("durable-writes");
        _buffer = (byte*)NativeMemory.AlignedAlloc((nuint)WriteSize, 4096);
        new Span<byte>(_buffer, WriteSize).Fill(0x5A);
        _directZeroed = new Target(PalFile.OpenJournal(Path.Combine(_directory, "direct-zeroed"), FileSize), dsync: true, zeroed: true);
        _directFallocated = new Target(Prepared(Path.Combine(_directory, "direct-fallocated"), PalOpenFlags.Journal), dsync: true, zeroed: false);
        _bufferedZeroed = new Target(Prepared(Path.Combine(_directory, "buffered-zeroed"), PalOpenFlags.Create, zero: true), dsync: false, zeroed: true);
        _bufferedFallocated = new Target(Prepared(Path.Combine(_directory, "buffered-fallocated"), PalOpenFlags.Create), dsync: false, zeroed: false);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        foreach (var target in new[] { _directZeroed, _directFallocated, _bufferedZeroed, _bufferedFallocated })
            target.File.Dispose();
        NativeMemory.AlignedFree(_buffer);
        Directory.Delete(_directory, recursive: true);
    }

    [Benchmark(Baseline = true, Description = "O_DIRECT|O_DSYNC, pre-zeroed")]
    public void DirectDsyncPreZeroed() => _directZeroed.Write(_buffer, WriteSize);

    [Benchmark(Description = "O_DIRECT|O_DSYNC, fallocated")]
    public void DirectDsyncFallocated() => _directFallocated.Write(_buffer, WriteSize);

    [Benchmark(Description = "write+fdatasync, pre-zeroed")]
    public void WriteFdatasyncPreZeroed() => _bufferedZeroed.Write(_buffer, WriteSize);

    [Benchmark(Description = "write+fdatasync, fallocated")]
    public void WriteFdatasyncFallocated() => _bufferedFallocated.Write(_buffer, WriteSize);

    private static PalFile Prepared(string path, PalOpenFlags flags, bool zero = false)
    {
        var file = PalFile.Open(path, flags);
        file.Allocate(0, FileSize);
        if (zero)
            file.Zero(0, FileSize);
        file.Sync();
        return file;
    }

    /// <summary>
    /// Appends like a journal. A fallocated file must keep writing into never-written blocks, so at
    /// its end the blocks are punched out and allocated again (once per 64 MiB, amortised away).
    /// </summary>
    private sealed class Target(PalFile file, bool dsync, bool zeroed)
    {
        private long _offset;

        public PalFile File { get; } = file;

        public void Write(byte* buffer, int size)
        {
            if (_offset + size > FileSize)
            {
                if (!zeroed)
                {
                    File.PunchHole(0, FileSize);
                    File.Allocate(0, FileSize);
                    File.Sync();
                }
                _offset = 0;
            }
            var one = new PalBuffer(buffer, size);
            File.Write(new ReadOnlySpan<PalBuffer>(&one, 1), _offset);
            if (!dsync)
                File.Sync();
            _offset += size;
        }
    }
}
