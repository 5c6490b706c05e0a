using System.IO.Pipelines;
using Cairn.Cluster.StateMachine;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Snapshots;

/// <summary>
/// Installs a leader's snapshot (a Cairn backup stream) on a follower: restores it into
/// <see cref="NodeFolders.Install"/> as it arrives (every checksum checked, the folder appearing only when the
/// whole stream was read), swaps it in for the node's closed environment (<see cref="NodeFolders.Swap"/>), opens it
/// there once (its recovery is the check that it opens) and checks that it holds the snapshot's index; only then is
/// the swap committed (<see cref="NodeFolders.Commit"/>) and the opened environment becomes the node's. A stream
/// that fails its checks throws <see cref="CorruptSnapshotException"/> and leaves the node as it was: before the
/// swap by deleting the install folder, after it by rolling back to the retired folder and reopening it.
/// </summary>
internal sealed class SnapshotInstaller(NodeFolders folders, EnvironmentSlot slot, Func<string, StorageEnvironment> open)
{

    /// <summary>Installs the snapshot <paramref name="snapshot"/> claims covers <paramref name="index"/>; returns the applied index the new environment holds.</summary>
    public async Task<long> InstallAsync(IDataTransferObject snapshot, long index, CancellationToken token)
    {
        folders.DiscardInstall();
        await ReceiveAsync(snapshot, index, token).ConfigureAwait(false);
        long applied = 0;
        await slot.ReplaceAsync(
            () =>
            {
                folders.Swap();
                var (installed, holds) = OpenChecked(index);
                try
                {
                    folders.Commit();
                }
                catch
                {
                    installed.Dispose();
                    throw;
                }

                applied = holds;
                return installed;
            },
            () =>
            {
                folders.Recover();
                return open(folders.Data);
            }).ConfigureAwait(false);
        return applied;
    }

    /// <summary>Restores the stream into the install folder while it arrives (restore reads synchronously, on its own thread).</summary>
    private async Task ReceiveAsync(IDataTransferObject snapshot, long index, CancellationToken token)
    {
        var pipe = new Pipe(PipeSink.Options);
        var restore = Task.Factory.StartNew(() => Restore(pipe.Reader, token), token, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        Exception? receiving = null;
        try
        {
            var sink = new PipeSink(pipe.Writer);
            await snapshot.WriteToAsync(sink, token).ConfigureAwait(false);
            await sink.FlushAsync(token).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            receiving = e;
        }

        await pipe.Writer.CompleteAsync(receiving).ConfigureAwait(false);
        try
        {
            await restore.ConfigureAwait(false);
        }
        catch (StorageFormatException e)
        {
            folders.DiscardInstall();
            throw new CorruptSnapshotException(index, e.Offset, e.Message, e);
        }
        catch
        {
            folders.DiscardInstall();
            throw;
        }
    }

    private void Restore(PipeReader input, CancellationToken token)
    {
        try
        {
            using (var stream = input.AsStream(leaveOpen: true))
                EnvironmentBackup.Restore(stream, folders.Install, null, token);
            input.Complete();
        }
        catch (Exception e)
        {
            // The sender may still be writing: a completed reader lets its writes through instead of blocking them.
            input.Complete(e);
            throw;
        }
    }

    /// <summary>Opens the swapped-in environment and reads the index it holds; closes it again if it does not hold <paramref name="index"/>.</summary>
    private (StorageEnvironment Installed, long Applied) OpenChecked(long index)
    {
        StorageEnvironment? installed = null;
        try
        {
            installed = open(folders.Data);
            var applied = CairnStateMachine.ReadAppliedIndex(installed);
            if (applied < index)
                throw new CorruptSnapshotException(index, -1, $"the environment it holds has applied only up to index {applied}");
            return (installed, applied);
        }
        catch (Exception e)
        {
            installed?.Dispose();
            if (e is StorageFormatException format)
                throw new CorruptSnapshotException(index, format.Offset, $"the restored environment does not open: {format.Message}", format);
            throw;
        }
    }
}
