namespace Cairn.Cluster;

/// <summary>What one operation of a replicated write does.</summary>
public enum ClusterOperationKind : byte
{
    /// <summary>Sets a key to a value.</summary>
    Put = 1,

    /// <summary>Removes a key (nothing happens if it is absent).</summary>
    Delete = 2,
}

/// <summary>
/// One put or delete of a replicated write. Checked where it is made: a key Cairn could not store would otherwise
/// fail on every node at apply, after the cluster committed it.
/// </summary>
public sealed class ClusterOperation
{
    /// <summary>Cairn's largest key, in bytes.</summary>
    public const int MaxKeyBytes = 2048;

    private ClusterOperation(ClusterOperationKind kind, byte[] key, byte[]? value)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (key.Length is 0 or > MaxKeyBytes)
            throw new ArgumentOutOfRangeException(nameof(key), key.Length, $"A key is 1 to {MaxKeyBytes} bytes.");
        Kind = kind;
        Key = key;
        Value = value;
    }

    /// <summary>Put or delete.</summary>
    public ClusterOperationKind Kind { get; }

    /// <summary>The key (1 to <see cref="MaxKeyBytes"/> bytes).</summary>
    public byte[] Key { get; }

    /// <summary>The value of a put; null for a delete.</summary>
    public byte[]? Value { get; }

    /// <summary>Sets <paramref name="key"/> to <paramref name="value"/>.</summary>
    public static ClusterOperation Put(byte[] key, byte[] value)
        => new(ClusterOperationKind.Put, key, value ?? throw new ArgumentNullException(nameof(value)));

    /// <summary>Removes <paramref name="key"/>.</summary>
    public static ClusterOperation Delete(byte[] key) => new(ClusterOperationKind.Delete, key, null);
}
