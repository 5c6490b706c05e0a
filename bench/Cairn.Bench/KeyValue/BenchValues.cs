namespace Cairn.Bench.KeyValue;

/// <summary>
/// The value stored under a key: the key itself followed by a fixed pattern, 100 bytes. Deriving it
/// from the key lets checks tell a misplaced value from a right one; the pattern is not all zeros
/// so no store gets a free ride from compressing or skipping zero runs.
/// </summary>
public static class BenchValues
{
    public const int ValueSize = 100;

    private static readonly byte[] s_template = CreateTemplate();

    /// <summary>Writes the value of <paramref name="key"/> into the first <see cref="ValueSize"/> bytes of <paramref name="destination"/>.</summary>
    public static void Compose(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        s_template.CopyTo(destination);
        key.CopyTo(destination);
    }

    /// <summary>Whether <paramref name="value"/> is exactly the value of <paramref name="key"/>.</summary>
    public static bool Matches(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) =>
        value.Length == ValueSize
        && value[..key.Length].SequenceEqual(key)
        && value[key.Length..].SequenceEqual(s_template.AsSpan(key.Length));

    private static byte[] CreateTemplate()
    {
        var template = new byte[ValueSize];
        for (var i = 0; i < template.Length; i++)
            template[i] = (byte)(0xA5 ^ (i * 37));
        return template;
    }
}
