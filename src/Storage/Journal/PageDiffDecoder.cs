using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cairn.Journal;

/// <summary>
/// Checks and applies the ops <see cref="PageDiffEncoder"/> writes. Every skip and length is checked
/// against the run and the encoded bytes before it is used, and every op consumes at least two
/// encoded bytes, so bad input ends in a problem report, never an out-of-bounds access or a loop.
/// One decoder serves both uses (check only, check and apply), so the checks cannot differ between them.
/// </summary>
internal static unsafe class PageDiffDecoder
{
    /// <summary>Null if the ops are well formed for a run of <paramref name="length"/> bytes, else what is wrong.</summary>
    public static string? Validate(byte* encoded, int encodedLength, int length)
    {
        var nowhere = new Nowhere();
        return Run(encoded, encodedLength, length, ref nowhere);
    }

    /// <summary>
    /// Applies the ops to <paramref name="target"/> (<paramref name="length"/> bytes). Returns null on
    /// success, else the problem; ops before the bad one have been applied (call
    /// <see cref="Validate"/> first to change nothing on bad input).
    /// </summary>
    public static string? Apply(byte* encoded, int encodedLength, byte* target, int length)
    {
        ArgumentNullException.ThrowIfNull(target);
        var direct = new Direct(target);
        return Run(encoded, encodedLength, length, ref direct);
    }

    /// <summary>What a checked op is handed to (a struct, so each use compiles to its own loop with the calls inlined).</summary>
    private interface IOpSink
    {
        void Literal(byte* source, int start, int count);

        void Zeros(int start, int count);
    }

    private struct Nowhere : IOpSink
    {
        public readonly void Literal(byte* source, int start, int count) { }

        public readonly void Zeros(int start, int count) { }
    }

    private readonly struct Direct(byte* target) : IOpSink
    {
        public void Literal(byte* source, int start, int count) => CopyLiteral(source, target + start, count);

        public void Zeros(int start, int count) => new Span<byte>(target + start, count).Clear();
    }

    // Replay runs this for every diff record (millions in a full journal), once per open: optimized from its first call.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static string? Run<TSink>(byte* encoded, int encodedLength, int length, ref TSink sink)
        where TSink : struct, IOpSink
    {
        long input = 0;
        long position = 0; // end of the previous op in the run
        int op = 0;
        while (input < encodedLength)
        {
            // Most skips and lengths fit one byte: read those without the general loop.
            ulong skip = encoded[input];
            int read = 1;
            if (skip >= 0x80 && !VarInt.TryRead(encoded + input, encodedLength - input, out skip, out read))
                return $"diff op {op} at byte {input}: malformed or truncated skip";
            input += read;
            ulong lengthAndKind;
            if (input < encodedLength && encoded[input] < 0x80)
            {
                lengthAndKind = encoded[input];
                read = 1;
            }
            else if (!VarInt.TryRead(encoded + input, encodedLength - input, out lengthAndKind, out read))
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
            if (literal)
            {
                if (count > (ulong)(encodedLength - input))
                    return $"diff op {op}: {count} literal bytes but only {encodedLength - input} encoded bytes left";
                sink.Literal(encoded + input, (int)start, (int)count);
                input += (long)count;
            }
            else
            {
                sink.Zeros((int)start, (int)count);
            }
            position = start + (long)count;
            op++;
        }
        return null;
    }

    /// <summary>
    /// Copies a literal: most are a few bytes to a couple of hundred (a key, a value, a slot; source and destination never overlap), for which a call to
    /// the general copy costs more than the copy itself; two overlapping loads and stores cover every length of a class.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void CopyLiteral(byte* source, byte* destination, int count)
    {
        if (count <= 16)
        {
            if (count >= 8)
            {
                Unsafe.WriteUnaligned(destination, Unsafe.ReadUnaligned<ulong>(source));
                Unsafe.WriteUnaligned(destination + count - 8, Unsafe.ReadUnaligned<ulong>(source + count - 8));
            }
            else if (count >= 4)
            {
                Unsafe.WriteUnaligned(destination, Unsafe.ReadUnaligned<uint>(source));
                Unsafe.WriteUnaligned(destination + count - 4, Unsafe.ReadUnaligned<uint>(source + count - 4));
            }
            else
            {
                // 1 to 3 bytes: first, middle and last (some the same byte).
                destination[0] = source[0];
                destination[count >> 1] = source[count >> 1];
                destination[count - 1] = source[count - 1];
            }
        }
        else if (count <= 32)
        {
            Vector128.Store(Vector128.Load(source), destination);
            Vector128.Store(Vector128.Load(source + count - 16), destination + count - 16);
        }
        else if (count <= 64 && Vector256.IsHardwareAccelerated)
        {
            Vector256.Store(Vector256.Load(source), destination);
            Vector256.Store(Vector256.Load(source + count - 32), destination + count - 32);
        }
        else if (count <= 128 && Vector256.IsHardwareAccelerated)
        {
            Vector256.Store(Vector256.Load(source), destination);
            Vector256.Store(Vector256.Load(source + 32), destination + 32);
            Vector256.Store(Vector256.Load(source + count - 64), destination + count - 64);
            Vector256.Store(Vector256.Load(source + count - 32), destination + count - 32);
        }
        else
        {
            Buffer.MemoryCopy(source, destination, count, count);
        }
    }
}
