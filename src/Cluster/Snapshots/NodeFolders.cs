using Cairn.Pal;

namespace Cairn.Cluster.Snapshots;

/// <summary>
/// A node's environment folders and the crash-safe swap of an installed snapshot for them. The environment lives in
/// <c>data/</c>; an install restores into <c>data.install/</c>, then (the old environment closed) renames <c>data/</c>
/// to <c>data.retired/</c> and <c>data.install/</c> to <c>data/</c> (<see cref="Swap"/>, each rename synced); the new
/// environment is opened there once and checked, and only then is the install committed (<see cref="Commit"/>: the
/// marker <c>install.ready</c> written and synced, the retired folder deleted, the marker removed). A check that fails
/// rolls back (<see cref="Recover"/>). <see cref="Recover"/>, run before the environment opens, ends whatever a crash
/// interrupted: with the marker the installed environment stays, without it the retired one comes back, so a node
/// reopens with the old state or the new, never a mix, and never with an environment nobody checked.
/// </summary>
internal sealed class NodeFolders(string nodeDirectory)
{
    public string Data { get; } = Path.Combine(nodeDirectory, "data");

    public string Install { get; } = Path.Combine(nodeDirectory, "data.install");

    private string Retired { get; } = Path.Combine(nodeDirectory, "data.retired");

    private string ReadyMarker { get; } = Path.Combine(nodeDirectory, "install.ready");

    /// <summary>A test's stand-in for a crash at one step of the swap (it throws there); null in service.</summary>
    internal Action<SwapStep>? CrashHook { get; init; }

    /// <summary>
    /// Ends an interrupted install: forward if it was committed (the marker is there), back otherwise (an installed
    /// environment not yet checked is deleted and the retired one renamed back); then removes the leftovers.
    /// </summary>
    public void Recover()
    {
        if (File.Exists(ReadyMarker))
        {
            // A marker beside data.install/ is an earlier version's: it marked the install checked before its swap.
            if (Directory.Exists(Install))
            {
                if (Directory.Exists(Data))
                {
                    if (Directory.Exists(Retired))
                        Directory.Delete(Retired, recursive: true);
                    PalFileSystem.RenameDurable(Data, Retired);
                }

                PalFileSystem.RenameDurable(Install, Data);
            }
        }
        else if (Directory.Exists(Retired))
        {
            if (Directory.Exists(Data))
                Directory.Delete(Data, recursive: true);
            PalFileSystem.RenameDurable(Retired, Data);
        }

        RemoveLeftovers();
    }

    /// <summary>
    /// Puts <see cref="Install"/>, restored, in the place of <see cref="Data"/>, keeping the old environment as
    /// <c>data.retired/</c> until <see cref="Commit"/>. The environment in <see cref="Data"/> must be closed.
    /// </summary>
    public void Swap()
    {
        CrashHook?.Invoke(SwapStep.Restored);
        PalFileSystem.RenameDurable(Data, Retired);
        CrashHook?.Invoke(SwapStep.OldRetired);
        PalFileSystem.RenameDurable(Install, Data);
        CrashHook?.Invoke(SwapStep.NewInPlace);
    }

    /// <summary>Makes the swapped-in environment, opened and checked, the node's for good: the old one is deleted.</summary>
    public void Commit()
    {
        CrashHook?.Invoke(SwapStep.Checked);
        using (var marker = new FileStream(ReadyMarker, FileMode.Create, FileAccess.Write, FileShare.None))
            marker.Flush(flushToDisk: true);
        PalFileSystem.SyncDirectory(nodeDirectory);
        CrashHook?.Invoke(SwapStep.Marked);
        RemoveLeftovers();
    }

    /// <summary>Deletes a failed install's folder (nothing else changed).</summary>
    public void DiscardInstall()
    {
        if (Directory.Exists(Install))
            Directory.Delete(Install, recursive: true);
    }

    private void RemoveLeftovers()
    {
        // With the marker, data.retired/ is the old state, committed away; without it, Recover has renamed it back
        // or there is none. The marker goes last: until then a crash deletes the rest of the retired folder again.
        if (Directory.Exists(Retired))
            Directory.Delete(Retired, recursive: true);
        DiscardInstall();
        if (File.Exists(ReadyMarker))
        {
            File.Delete(ReadyMarker);
            PalFileSystem.SyncDirectory(nodeDirectory);
        }
    }
}

/// <summary>The points of an install's swap (<see cref="NodeFolders.Swap"/>, <see cref="NodeFolders.Commit"/>) a test can crash at.</summary>
internal enum SwapStep
{
    Restored,
    OldRetired,
    NewInPlace,
    Checked,
    Marked,
}
