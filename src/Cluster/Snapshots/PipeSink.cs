using System.Buffers;
using System.IO.Pipelines;
using DotNext;
using DotNext.IO;

namespace Cairn.Cluster.Snapshots;

/// <summary>
/// Writes what DotNext hands an <see cref="IAsyncBinaryWriter"/> into a pipe, flushing (waking the reader, and
/// waiting while the pipe is full) once per <see cref="FlushBytes"/> rather than per write: a snapshot arrives in
/// network-frame-sized pieces, and a flush per piece made the restore thread wake for each one.
/// </summary>
internal sealed class PipeSink(PipeWriter output) : IAsyncBinaryWriter
{
    public const int FlushBytes = 1 << 20;
    private long unflushed;

    /// <summary>Room in the pipe for a writer that formats in place; <see cref="AdvanceAsync"/> commits it.</summary>
    public Memory<byte> Buffer => output.GetMemory(64 << 10);

    public async ValueTask AdvanceAsync(int bytes, CancellationToken token = default)
    {
        output.Advance(bytes);
        unflushed += bytes;
        if (unflushed >= FlushBytes)
            await FlushAsync(token).ConfigureAwait(false);
    }

    async ValueTask ISupplier<ReadOnlyMemory<byte>, CancellationToken, ValueTask>.Invoke(ReadOnlyMemory<byte> input, CancellationToken token)
    {
        output.Write(input.Span);
        unflushed += input.Length;
        if (unflushed >= FlushBytes)
            await FlushAsync(token).ConfigureAwait(false);
    }

    public async ValueTask FlushAsync(CancellationToken token)
    {
        unflushed = 0;
        await output.FlushAsync(token).ConfigureAwait(false);
    }

    /// <summary>Pipe settings for a snapshot: large segments, a few MiB in flight.</summary>
    public static PipeOptions Options { get; } = new(minimumSegmentSize: 256 << 10, pauseWriterThreshold: 8 << 20, resumeWriterThreshold: 4 << 20,
        useSynchronizationContext: false);
}
