using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Bench.Sharing;

/// <summary>
/// What the device allows shared journals to gain, with no engine in the way: N threads each appending
/// one 4 KiB block per O_DIRECT|O_DSYNC write to a journal file of its own (separate journals at one
/// commit in flight per environment) against one thread appending N blocks per vectored write to one file
/// (a shared write carrying every environment's entry), rounds interleaved. The ratio of their rates is the
/// most a group can gain over separate journals at one caller per environment on this disk: a device that
/// runs concurrent writes in parallel already gives separate journals much of what sharing would.
/// </summary>
internal sealed unsafe class DeviceCeiling : IDisposable
{
    private const int Block = 4096;
    private const long FileSize = 16L << 20;

    private readonly int _streams;
    private readonly PalFile[] _files;
    private readonly byte* _buffer;
    private readonly long[] _offsets;
    private TimeSpan _parallel, _vectored;
    private long _parallelWrites, _vectoredWrites;
    // Under an IOPS cap: the block layer's write operations so far, and those each phase cost.
    private readonly Func<long>? _operations;
    private long _parallelOperations, _vectoredOperations;

    public DeviceCeiling(string directory, int streams, Func<long>? throttledOperations = null)
    {
        _operations = throttledOperations;
        _streams = streams;
        Directory.CreateDirectory(directory);
        _files = [.. Enumerable.Range(0, streams).Select(i => PalFile.OpenJournal(Path.Combine(directory, $"stream{i}"), FileSize))];
        _offsets = new long[streams];
        _buffer = (byte*)NativeMemory.AlignedAlloc((nuint)(Block * streams), Block);
        new Span<byte>(_buffer, Block * streams).Fill(0x5A);
    }

    /// <summary>
    /// One round of each: <paramref name="writes"/> writes per stream, then at least as many vectored writes and for
    /// at least as long as the streams took. Under a cap applied in slices (blk-throttle's 100 ms), a phase shorter than
    /// a slice runs inside one burst at the device's own speed while the other meets the stalls; equal spans of time
    /// put both through the same slices (a 100-write vectored phase alone printed a ceiling of 51.85× once).
    /// </summary>
    public void RunRound(int writes, bool measured)
    {
        long operationsBefore = _operations?.Invoke() ?? 0;
        var started = Stopwatch.GetTimestamp();
        var threads = Enumerable.Range(0, _streams).Select(i => new Thread(() =>
        {
            for (int k = 0; k < writes; k++)
                Append(i, blocks: 1);
        })).ToArray();
        foreach (var thread in threads)
            thread.Start();
        foreach (var thread in threads)
            thread.Join();
        var parallel = Stopwatch.GetElapsedTime(started);
        long operationsBetween = _operations?.Invoke() ?? 0;

        started = Stopwatch.GetTimestamp();
        int vectoredWrites = 0;
        while (vectoredWrites < writes || Stopwatch.GetElapsedTime(started) < parallel)
        {
            Append(0, blocks: _streams);
            vectoredWrites++;
        }
        var vectored = Stopwatch.GetElapsedTime(started);
        if (!measured)
            return;
        _parallelOperations += operationsBetween - operationsBefore;
        _vectoredOperations += (_operations?.Invoke() ?? 0) - operationsBetween;
        _parallel += parallel;
        _vectored += vectored;
        _parallelWrites += (long)writes * _streams;
        _vectoredWrites += vectoredWrites;
    }

    /// <summary>Microseconds per write with every stream writing at once.</summary>
    public double ParallelMicros => _parallel.TotalMicroseconds * _streams / Math.Max(1, _parallelWrites);

    /// <summary>Microseconds per vectored write of one block per stream.</summary>
    public double VectoredMicros => _vectored.TotalMicroseconds / Math.Max(1, _vectoredWrites);

    /// <summary>Throttled block-layer operations per 4 KiB write (under an IOPS cap; 0 without).</summary>
    public double ParallelOperationsPerWrite => _parallelOperations / (double)Math.Max(1, _parallelWrites);

    /// <summary>Throttled block-layer operations per vectored write (under an IOPS cap; 0 without).</summary>
    public double VectoredOperationsPerWrite => _vectoredOperations / (double)Math.Max(1, _vectoredWrites);

    /// <summary>Blocks per second vectored over blocks per second in parallel.</summary>
    public double Ratio => ParallelMicros / VectoredMicros;

    private void Append(int stream, int blocks)
    {
        Span<PalBuffer> buffers = stackalloc PalBuffer[blocks];
        for (int b = 0; b < blocks; b++)
            buffers[b] = new PalBuffer(_buffer + (long)b * Block, Block);
        long length = (long)blocks * Block;
        if (_offsets[stream] + length > FileSize)
            _offsets[stream] = 0;
        _files[stream].Write(buffers, _offsets[stream]);
        _offsets[stream] += length;
    }

    public void Dispose()
    {
        foreach (var file in _files)
            file.Dispose();
        NativeMemory.AlignedFree(_buffer);
    }
}
