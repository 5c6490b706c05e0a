namespace Cairn.Journal;

/// <summary>
/// Checks and applies the ops <see cref="PageDiffEncoder"/> writes. Every skip and length is checked
/// against the run and the encoded bytes before it is used, and every op consumes at least two
/// encoded bytes, so bad input ends in a problem report, never an out-of-bounds access or a loop.
/// </summary>
internal static unsafe class PageDiffDecoder
{
    /// <summary>Null if the ops are well formed for a run of <paramref name="length"/> bytes, else what is wrong.</summary>
    public static string? Validate(byte* encoded, int encodedLength, int length)
        => Run(encoded, encodedLength, target: null, length);

    /// <summary>
    /// Applies the ops to <paramref name="target"/> (<paramref name="length"/> bytes). Returns null on
    /// success, else the problem; ops before the bad one have been applied (call
    /// <see cref="Validate"/> first to change nothing on bad input).
    /// </summary>
    public static string? Apply(byte* encoded, int encodedLength, byte* target, int length)
    {
        ArgumentNullException.ThrowIfNull(target);
        return Run(encoded, encodedLength, target, length);
    }

    private static string? Run(byte* encoded, int encodedLength, byte* target, int length)
    {
        long input = 0;
        long position = 0; // end of the previous op in the run
        int op = 0;
        while (input < encodedLength)
        {
            if (!VarInt.TryRead(encoded + input, encodedLength - input, out ulong skip, out int read))
                return $"diff op {op} at byte {input}: malformed or truncated skip";
            input += read;
            if (!VarInt.TryRead(encoded + input, encodedLength - input, out ulong lengthAndKind, out read))
                return $"diff op {op} at byte {input}: malformed or truncated length";
            input += read;
            bool literal = (lengthAndKind & 1) == 0;
            ulong count = lengthAndKind >> 1;
            if (count == 0)
                return $"diff op {op}: zero length";
            if (skip > (ulong)(length - position))
                return $"diff op {op}: skip {skip} from byte {position} passes the run's end ({length} bytes)";
            long start = position + (long)skip;
            if (count > (ulong)(length - start))
                return $"diff op {op}: {count} bytes at byte {start} pass the run's end ({length} bytes)";
            if (literal && count > (ulong)(encodedLength - input))
                return $"diff op {op}: {count} literal bytes but only {encodedLength - input} encoded bytes left";
            if (target != null)
            {
                if (literal)
                    Buffer.MemoryCopy(encoded + input, target + start, (long)count, (long)count);
                else
                    new Span<byte>(target + start, (int)count).Clear();
            }
            if (literal)
                input += (long)count;
            position = start + (long)count;
            op++;
        }
        return null;
    }
}
