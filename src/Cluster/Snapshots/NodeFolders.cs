using Cairn.Pal;

namespace Cairn.Cluster.Snapshots;

/// <summary>
/// A node's environment folders and the crash-safe swap of an installed snapshot for them. The environment lives in
/// <c>data/</c>; an install restores into <c>data.install/</c>, validates it, writes the marker <c>install.ready</c>,
/// then renames <c>data/</c> to <c>data.retired/</c> and <c>data.install/</c> to <c>data/</c> (each rename synced),
/// removes the marker and deletes the retired folder. <see cref="Recover"/>, run before the environment opens, ends
/// whatever a crash interrupted: with the marker it rolls forward to the installed folder, without it it rolls back to
/// the old one, so a node reopens with the old state or the new, never a mix.
/// </summary>
internal sealed class NodeFolders(string nodeDirectory)
{
    public string Data { get; } = Path.Combine(nodeDirectory, "data");

    public string Install { get; } = Path.Combine(nodeDirectory, "data.install");

    private string Retired { get; } = Path.Combine(nodeDirectory, "data.retired");

    private string ReadyMarker { get; } = Path.Combine(nodeDirectory, "install.ready");

    /// <summary>A test's stand-in for a crash at one step of the swap (it throws there); null in service.</summary>
    internal Action<SwapStep>? CrashHook { get; init; }

    /// <summary>Ends an interrupted install: forward if it was marked ready, back otherwise; then removes the leftovers.</summary>
    public void Recover()
    {
        var ready = File.Exists(ReadyMarker) && Directory.Exists(Install);
        if (ready)
        {
            if (Directory.Exists(Data))
            {
                if (Directory.Exists(Retired))
                    Directory.Delete(Retired, recursive: true);
                PalFileSystem.RenameDurable(Data, Retired);
            }

            PalFileSystem.RenameDurable(Install, Data);
        }
        else if (!Directory.Exists(Data) && Directory.Exists(Retired))
        {
            PalFileSystem.RenameDurable(Retired, Data);
        }

        RemoveLeftovers();
    }

    /// <summary>Makes <see cref="Install"/>, restored and validated, the node's <see cref="Data"/>. The environment in <see cref="Data"/> must be closed.</summary>
    public void Swap()
    {
        CrashHook?.Invoke(SwapStep.Restored);
        using (var marker = new FileStream(ReadyMarker, FileMode.Create, FileAccess.Write, FileShare.None))
            marker.Flush(flushToDisk: true);
        PalFileSystem.SyncDirectory(nodeDirectory);
        CrashHook?.Invoke(SwapStep.Marked);
        PalFileSystem.RenameDurable(Data, Retired);
        CrashHook?.Invoke(SwapStep.OldRetired);
        PalFileSystem.RenameDurable(Install, Data);
        CrashHook?.Invoke(SwapStep.NewInPlace);
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
        if (File.Exists(ReadyMarker))
        {
            File.Delete(ReadyMarker);
            PalFileSystem.SyncDirectory(nodeDirectory);
        }

        // Without the marker these can only be the old state (retired) or an install that never completed.
        if (Directory.Exists(Retired))
            Directory.Delete(Retired, recursive: true);
        DiscardInstall();
    }
}

/// <summary>The points of <see cref="NodeFolders.Swap"/> a test can crash at.</summary>
internal enum SwapStep
{
    Restored,
    Marked,
    OldRetired,
    NewInPlace,
}
