namespace Cairn.Bench.KeyValue;

/// <summary>
/// Fixed-size keys stored back to back in one array, so walking them costs no allocation and no
/// indirection beyond the key itself.
/// </summary>
public sealed class KeySet
{
    public const int KeySize = 16;

    private readonly byte[] _bytes;

    internal KeySet(byte[] bytes)
    {
        if (bytes.Length % KeySize != 0)
            throw new ArgumentException($"length must be a multiple of {KeySize}", nameof(bytes));
        _bytes = bytes;
        Count = bytes.Length / KeySize;
    }

    public int Count { get; }

    public ReadOnlySpan<byte> this[int index] => new(_bytes, index * KeySize, KeySize);
}
