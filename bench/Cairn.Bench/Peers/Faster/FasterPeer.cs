using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using FASTER.core;

namespace Cairn.Bench.Peers.Faster;

/// <summary>A 16-byte key as FASTER stores it: a blittable struct, compared and hashed by <see cref="FasterKeyComparer"/>.</summary>
public struct FasterKey
{
    public ulong High;
    public ulong Low;

    public static FasterKey From(ReadOnlySpan<byte> key)
    {
        if (key.Length != 16)
            throw new ArgumentException("the FASTER peer stores 16-byte keys", nameof(key));
        return new FasterKey { High = BinaryPrimitives.ReadUInt64BigEndian(key), Low = BinaryPrimitives.ReadUInt64BigEndian(key[8..]) };
    }

    public readonly void CopyTo(Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt64BigEndian(destination, High);
        BinaryPrimitives.WriteUInt64BigEndian(destination[8..], Low);
    }
}

/// <summary>A 100-byte value inline in the record (the benchmarks' value size), so no object log is needed.</summary>
[InlineArray(Size)]
public struct FasterValue
{
    public const int Size = 100;

    private byte _first;

    public static FasterValue From(ReadOnlySpan<byte> value)
    {
        if (value.Length != Size)
            throw new ArgumentException($"the FASTER peer stores {Size}-byte values", nameof(value));
        var result = default(FasterValue);
        value.CopyTo(result);
        return result;
    }
}

/// <summary>Hashes both halves of the key (the key-value suite's keys differ only in the low half).</summary>
public sealed class FasterKeyComparer : IFasterEqualityComparer<FasterKey>
{
    public long GetHashCode64(ref FasterKey k) => Utility.GetHashCode((long)(k.High * 0x9E3779B97F4A7C15 ^ k.Low));

    public bool Equals(ref FasterKey k1, ref FasterKey k2) => k1.High == k2.High && k1.Low == k2.Low;
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
        var settings = new FasterKVSettings<FasterKey, FasterValue>(directory, deleteDirOnDispose: false)
        {
            TryRecoverLatest = true,
            RemoveOutdatedCheckpoints = true,
            MemorySize = MemorySize,
            EqualityComparer = new FasterKeyComparer(),
        };
        try
        {
            return new FasterInstance(new FasterKV<FasterKey, FasterValue>(settings), settings, directory);
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
    public static ClientSession<FasterKey, FasterValue, FasterValue, FasterValue, Empty, SimpleFunctions<FasterKey, FasterValue>> NewSession(FasterKV<FasterKey, FasterValue> store)
        => store.For(new SimpleFunctions<FasterKey, FasterValue>()).NewSession<SimpleFunctions<FasterKey, FasterValue>>();

    /// <summary>A FoldOver hybrid-log checkpoint, waited for: everything upserted before the call is durable when it returns.</summary>
    public static void Checkpoint(FasterKV<FasterKey, FasterValue> store)
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
public sealed class FasterInstance(FasterKV<FasterKey, FasterValue> store, FasterKVSettings<FasterKey, FasterValue> settings, string directory) : IDisposable
{
    public FasterKV<FasterKey, FasterValue> Store { get; } = store;

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
