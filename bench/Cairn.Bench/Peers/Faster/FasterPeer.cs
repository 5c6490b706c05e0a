using FASTER.core;

namespace Cairn.Bench.Peers.Faster;

/// <summary>Hashes both halves of the key (the key-value suite's keys differ only in the low half).</summary>
public sealed class FasterKeyComparer : IFasterEqualityComparer<Key16>
{
    public long GetHashCode64(ref Key16 k) => Utility.GetHashCode((long)(k.High * 0x9E3779B97F4A7C15 ^ k.Low));

    public bool Equals(ref Key16 k1, ref Key16 k2) => k1.High == k2.High && k1.Low == k2.Low;
}

/// <summary>
/// Opens FASTER KV (NuGet <c>Microsoft.FASTER.Core</c> 2.6.5, pure managed) the way its documentation
/// sets up a store that survives a restart: <see cref="FasterKVSettings{Key,Value}"/> with a base
/// directory, which puts the hybrid log on a local log device (<c>Devices.CreateLogDevice</c>: on
/// Linux a <c>ManagedLocalStorageDevice</c>, files opened with <c>FileOptions.WriteThrough</c> and
/// unbuffered) and the checkpoints in a folder beside it, and <c>TryRecoverLatest</c>, so opening
/// recovers the newest checkpoint. FASTER's operations complete in memory; what makes them durable is a
/// checkpoint. Its docs recommend frequent log-only (hybrid log) checkpoints, of which FoldOver is the
/// cheap kind (it flushes the log up to the tail and writes a small metadata file), and index
/// checkpoints only now and then; <see cref="Checkpoint"/> takes a FoldOver log checkpoint and waits for it.
/// </summary>
public static class FasterPeer
{
    /// <summary>The whole working set stays in memory (1,000,000 records of 136 bytes need about 130 MiB), as for the other peers.</summary>
    private const long MemorySize = 1L << 30;

    public static FasterInstance Open(string directory)
    {
        var settings = new FasterKVSettings<Key16, Value100>(directory, deleteDirOnDispose: false)
        {
            TryRecoverLatest = true,
            RemoveOutdatedCheckpoints = true,
            MemorySize = MemorySize,
            EqualityComparer = new FasterKeyComparer(),
        };
        try
        {
            return new FasterInstance(new FasterKV<Key16, Value100>(settings), settings, directory);
        }
        catch
        {
            settings.Dispose();
            throw;
        }
    }

    /// <summary>
    /// A session with the functions' concrete type (FASTER's <c>For(functions).NewSession</c>), so its
    /// callbacks are not interface calls. Sessions are single-threaded: one per reader or writer.
    /// </summary>
    public static ClientSession<Key16, Value100, Value100, Value100, Empty, SimpleFunctions<Key16, Value100>> NewSession(FasterKV<Key16, Value100> store)
        => store.For(new SimpleFunctions<Key16, Value100>()).NewSession<SimpleFunctions<Key16, Value100>>();

    /// <summary>A FoldOver hybrid-log checkpoint, waited for: everything upserted before the call is durable when it returns.</summary>
    public static void Checkpoint(FasterKV<Key16, Value100> store)
    {
        while (true)
        {
            var (success, _) = store.TakeHybridLogCheckpointAsync(CheckpointType.FoldOver).AsTask().GetAwaiter().GetResult();
            if (success)
                return;
            // Another checkpoint was in progress: it may have begun before our upserts, so wait and take our own.
            store.CompleteCheckpointAsync().AsTask().GetAwaiter().GetResult();
        }
    }
}

/// <summary>An open store with the settings (and so the log device) it was made from; disposing closes both, the store first.</summary>
public sealed class FasterInstance(FasterKV<Key16, Value100> store, FasterKVSettings<Key16, Value100> settings, string directory) : IDisposable
{
    public FasterKV<Key16, Value100> Store { get; } = store;

    public string Describe()
    {
        // FASTER.core.dll carries assembly and informational version 1.0.0 whatever the package's, so the package version is named here.
        return $"FASTER KV (Microsoft.FASTER.Core 2.6.5), log and checkpoints in {directory}; log device {settings.LogDevice?.GetType().Name}, " +
            $"page {settings.PageSize >> 20} MiB, memory {settings.MemorySize >> 20} MiB, recovered version {Store.RecoveredVersion}; " +
            "durable point: a FoldOver hybrid-log checkpoint";
    }

    public void Dispose()
    {
        Store.Dispose();
        settings.Dispose();
    }
}
