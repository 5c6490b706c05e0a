namespace Cairn;

/// <summary>How to open a read-only replica (<see cref="ReplicaEnvironment.Open"/>): the environment options of its directory.</summary>
public sealed class ReplicaOptions
{
    /// <summary>A replica in <paramref name="directoryPath"/> (a full backup of the primary), every setting at its default.</summary>
    /// <param name="directoryPath">The replica's directory: a copy of the primary's environment (same environment id).</param>
    public ReplicaOptions(string directoryPath)
        : this(new StorageOptions(directoryPath))
    {
    }

    /// <summary>A replica opened with <paramref name="storage"/> (its directory, scratch limits, flushing, logging).</summary>
    /// <param name="storage">The environment options; writes are refused whatever they say.</param>
    public ReplicaOptions(StorageOptions storage)
    {
        ArgumentNullException.ThrowIfNull(storage);
        Storage = storage;
    }

    /// <summary>The options the replica's environment is opened with.</summary>
    public StorageOptions Storage { get; }
}
