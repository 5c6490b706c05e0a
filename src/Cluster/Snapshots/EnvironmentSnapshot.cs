using System.IO.Pipelines;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Snapshots;

/// <summary>
/// A node's snapshot as DotNext sees it: the point (<see cref="Index"/>, <see cref="Term"/>) the environment durably
/// covers, and, when a follower needs it, a Cairn backup stream of the environment taken at that moment
/// (<see cref="EnvironmentBackup.Backup(StorageEnvironment, Stream, BackupOptions?, CancellationToken)"/>). The stream
/// holds at least every entry up to <see cref="Index"/>, often more: the follower's skip guard passes over the entries
/// it then receives that its environment already holds. Each send takes a fresh backup, so nothing is kept on disk.
/// </summary>
internal sealed class EnvironmentSnapshot(EnvironmentSlot environment, SnapshotPoint point) : ISnapshot
{
    public long Index => point.Index;

    public long Term => point.Term;

    public DateTimeOffset Timestamp { get; } = DateTimeOffset.UtcNow;

    public bool IsReusable => true;

    public long? Length => null;

    public async ValueTask WriteToAsync<TWriter>(TWriter writer, CancellationToken token)
        where TWriter : IAsyncBinaryWriter
    {
        var pipe = new Pipe(PipeSink.Options);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(token);
        var source = environment.Current;
        // Backup writes synchronously; it gets its own thread and the pipe carries its bytes to the async writer.
        var backup = Task.Factory.StartNew(() => BackUp(source, pipe.Writer, stop.Token), stop.Token,
            TaskCreationOptions.LongRunning, TaskScheduler.Default);
        try
        {
            await writer.CopyFromAsync(pipe.Reader, null, token).ConfigureAwait(false);
        }
        catch
        {
            await stop.CancelAsync().ConfigureAwait(false);
            await pipe.Reader.CompleteAsync().ConfigureAwait(false);
            await backup.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            throw;
        }

        await pipe.Reader.CompleteAsync().ConfigureAwait(false);
        await backup.ConfigureAwait(false);
    }

    /// <summary>
    /// A follower waits on the copy to rejoin the majority, so it runs at the node's priority: at the lowest one a
    /// loaded machine starved it (the same 1.3 GB send took 2.8 to 10.8 s at load 20-30; docs/benchmarks.md).
    /// </summary>
    private static readonly BackupOptions SendOptions = new() { LowPriority = false };

    private static void BackUp(StorageEnvironment source, PipeWriter output, CancellationToken token)
    {
        try
        {
            // The applier commits lazily and a backup holds what is durable: writing the lazy commits first sends the
            // follower everything this node has applied, not only what the last journal write carried.
            source.FlushJournal();
            using (var stream = output.AsStream(leaveOpen: true))
                source.Backup(stream, SendOptions, token);
            output.Complete();
        }
        catch (Exception e)
        {
            output.Complete(e);
            throw;
        }
    }
}
