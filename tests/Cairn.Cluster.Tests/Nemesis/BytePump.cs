using System.Buffers;
using System.Diagnostics;
using System.Net.Sockets;
using System.Threading.Channels;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// Moves one direction of a proxied connection through its link: a reader takes chunks from the source and
/// stamps each with the time it may leave (now, or now plus the link's delay), a writer sends them in the order
/// read once that time has come. A shorter delay set later never lets a chunk overtake an earlier one.
/// </summary>
internal static class BytePump
{
    private const int ChunkSize = 16 * 1024;

    // Chunks read but not yet written; a full queue stops the reader, so a delayed link holds back its sender
    // the way a long pipe does instead of buffering without bound.
    private const int ChunksInFlight = 64;

    private readonly record struct Chunk(byte[] Buffer, int Length, long DueTimestamp);

    /// <summary>
    /// Runs until the source ends and the destination has been told so, or until a failure on either side, which
    /// calls <paramref name="abort"/> (cutting the whole connection) instead of throwing.
    /// </summary>
    public static Task RunAsync(Socket source, Socket destination, DirectedLink link, Action abort, CancellationToken cancellation)
    {
        var queue = Channel.CreateBounded<Chunk>(new BoundedChannelOptions(ChunksInFlight)
        {
            SingleReader = true,
            SingleWriter = true,
            FullMode = BoundedChannelFullMode.Wait,
        });
        return Task.WhenAll(
            AbortOnFailureAsync(ReadAsync(source, queue.Writer, link, cancellation), queue.Writer, abort),
            AbortOnFailureAsync(WriteAsync(queue.Reader, destination, link, cancellation), queue.Writer, abort));
    }

    private static async Task AbortOnFailureAsync(Task half, ChannelWriter<Chunk> queue, Action abort)
    {
        try
        {
            await half;
        }
        catch (Exception failure) when (failure is SocketException or ObjectDisposedException or OperationCanceledException or ChannelClosedException)
        {
            abort();
        }
        finally
        {
            queue.TryComplete();
        }
    }

    private static async Task ReadAsync(Socket source, ChannelWriter<Chunk> queue, DirectedLink link, CancellationToken cancellation)
    {
        while (true)
        {
            var buffer = ArrayPool<byte>.Shared.Rent(ChunkSize);
            int length;
            try
            {
                length = await source.ReceiveAsync(buffer, SocketFlags.None, cancellation);
            }
            catch
            {
                ArrayPool<byte>.Shared.Return(buffer);
                throw;
            }

            if (length == 0)
            {
                ArrayPool<byte>.Shared.Return(buffer);
                // The end of stream is held while the link drops, as a lost FIN is sent again after a heal.
                await link.HoldWhileDroppingAsync(0, cancellation);
                return;
            }

            // Held, not thrown away: a TCP sender sends lost bytes again, so after a heal the stream goes on whole.
            // Reading stops meanwhile, so the sender's socket buffers fill and its writes block, as with lost ACKs.
            try
            {
                await link.HoldWhileDroppingAsync(length, cancellation);
            }
            catch
            {
                ArrayPool<byte>.Shared.Return(buffer);
                throw;
            }

            var behaviour = link.Behaviour;
            if (behaviour.Mode is LinkMode.Reset)
            {
                // The connection is being cut: what slipped in meanwhile is lost with it.
                ArrayPool<byte>.Shared.Return(buffer);
                continue;
            }

            var due = Stopwatch.GetTimestamp();
            if (behaviour.Mode == LinkMode.Delay)
                due += (long)(behaviour.Delay.TotalSeconds * Stopwatch.Frequency);
            await queue.WriteAsync(new Chunk(buffer, length, due), cancellation);
        }
    }

    /// <summary>
    /// Waits until the stopwatch reaches <paramref name="dueTimestamp"/>. One <see cref="Task.Delay(TimeSpan, CancellationToken)"/>
    /// is not enough: it counts whole milliseconds on the timer's clock and can end a little before the stopwatch's due
    /// time, and a delayed chunk must never arrive early.
    /// </summary>
    private static async Task WaitUntilAsync(long dueTimestamp, CancellationToken cancellation)
    {
        TimeSpan wait;
        while ((wait = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), dueTimestamp)) > TimeSpan.Zero)
            await Task.Delay(wait < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : wait, cancellation);
    }

    private static async Task WriteAsync(ChannelReader<Chunk> queue, Socket destination, DirectedLink link, CancellationToken cancellation)
    {
        try
        {
            await foreach (var chunk in queue.ReadAllAsync(cancellation))
            {
                try
                {
                    await WaitUntilAsync(chunk.DueTimestamp, cancellation);
                    // Counted before sending, so a receiver that has the bytes always finds them counted.
                    link.CountForwarded(chunk.Length);
                    await SendAllAsync(destination, chunk.Buffer.AsMemory(0, chunk.Length), cancellation);
                }
                finally
                {
                    ArrayPool<byte>.Shared.Return(chunk.Buffer);
                }
            }

            destination.Shutdown(SocketShutdown.Send);
        }
        finally
        {
            while (queue.TryRead(out var left))
                ArrayPool<byte>.Shared.Return(left.Buffer);
        }
    }

    private static async Task SendAllAsync(Socket destination, ReadOnlyMemory<byte> bytes, CancellationToken cancellation)
    {
        while (!bytes.IsEmpty)
        {
            var sent = await destination.SendAsync(bytes, SocketFlags.None, cancellation);
            bytes = bytes[sent..];
        }
    }
}
