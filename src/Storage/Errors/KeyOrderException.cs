namespace Cairn;

/// <summary>
/// <see cref="Tree.Append"/> was given a key that is not above every key already in the tree (out of order, or
/// equal to the last one). Nothing was changed by the refused call; the transaction stays usable.
/// </summary>
public sealed class KeyOrderException : ArgumentException
{
    // Keys can be 2 KiB; the message shows enough of each to tell them apart in a log.
    private const int ShownBytes = 64;

    internal KeyOrderException(string treeName, byte[] lastKey, byte[] key)
        : base($"Tree '{treeName}': an appended key must be above the tree's last key; got {Show(key)} after {Show(lastKey)}.")
    {
        TreeName = treeName;
        LastKey = lastKey;
        Key = key;
    }

    /// <summary>The tree that refused the key.</summary>
    public string TreeName { get; }

    /// <summary>The tree's last key when the append was refused.</summary>
    public ReadOnlyMemory<byte> LastKey { get; }

    /// <summary>The refused key.</summary>
    public ReadOnlyMemory<byte> Key { get; }

    private static string Show(byte[] key) =>
        key.Length <= ShownBytes
            ? $"0x{Convert.ToHexString(key)}"
            : $"0x{Convert.ToHexString(key, 0, ShownBytes)}… ({key.Length} bytes)";
}
