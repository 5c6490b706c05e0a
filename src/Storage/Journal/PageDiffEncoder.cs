using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cairn.Journal;

/// <summary>
/// Encodes a page run as the operations that turn its base (its previous version, or all zeros)
/// into its current bytes. Format (docs/on-disk-format.md, "Diff operations"): a sequence of
/// <c>varint skip, varint (length &lt;&lt; 1 | kind)</c>, each op starting <c>skip</c> bytes after the
/// previous op's end; kind 0 = literal (<c>length</c> bytes follow), kind 1 = zero run. Ops only ever
/// set bytes to values (no copies from the base), so replaying a run of entries over any version of
/// the page between the first entry's base and the last entry converges to the last entry's page.
/// </summary>
internal static unsafe class PageDiffEncoder
{
    /// <summary>The base is compared in chunks of this size through a caller-provided mask buffer.</summary>
    public const int ChunkSize = 8192;

    /// <summary>Unchanged bytes between two changed ranges up to this many are sent as literal bytes (cheaper than a new op).</summary>
    public const int MergeGap = 3;

    /// <summary>Zero bytes inside a changed range become their own op from this length (diffs against a previous version only).</summary>
    public const int MinZeroRun = 8;

    /// <summary>
    /// Writes the ops that turn <paramref name="previous"/> (null: all zeros) into
    /// <paramref name="current"/>, both <paramref name="length"/> bytes, to
    /// <paramref name="destination"/>; returns the bytes written, or −1 as soon as they would exceed
    /// <paramref name="limit"/> (nothing past <c>destination + limit</c> is ever written).
    /// <paramref name="mask"/> is <see cref="ChunkSize"/> bytes of scratch space.
    /// </summary>
    public static int Encode(byte* current, byte* previous, int length, byte* destination, int limit, byte* mask)
    {
        var emitter = new Emitter(current, destination, limit, zeroBase: previous == null);
        for (int chunk = 0; chunk < length; chunk += ChunkSize)
        {
            int n = Math.Min(ChunkSize, length - chunk);
            byte* changed;
            if (previous == null)
            {
                changed = current + chunk;
            }
            else
            {
                Xor(current + chunk, previous + chunk, mask, n);
                changed = mask;
            }
            int position = 0;
            while (position < n)
            {
                int start = new ReadOnlySpan<byte>(changed + position, n - position).IndexOfAnyExcept((byte)0);
                if (start < 0)
                    break;
                start += position;
                int end = RangeEnd(changed, start, n);
                if (!emitter.Add(chunk + start, chunk + end))
                    return -1;
                position = end;
            }
        }
        return emitter.Finish() ? emitter.Written : -1;
    }

    /// <summary>The end of the changed range at <paramref name="start"/>, absorbing gaps of up to <see cref="MergeGap"/> unchanged bytes.</summary>
    private static int RangeEnd(byte* changed, int start, int n)
    {
        int end = start;
        while (true)
        {
            int zero = new ReadOnlySpan<byte>(changed + end, n - end).IndexOf((byte)0);
            if (zero < 0)
                return n;
            end += zero;
            int gap = 0;
            while (end + gap < n && gap <= MergeGap && changed[end + gap] == 0)
                gap++;
            if (end + gap == n || gap > MergeGap)
                return end;
            end += gap;
        }
    }

    private static void Xor(byte* a, byte* b, byte* result, int n)
    {
        int i = 0;
        if (Vector256.IsHardwareAccelerated)
        {
            for (; i <= n - Vector256<byte>.Count; i += Vector256<byte>.Count)
                Vector256.Store(Vector256.Load(a + i) ^ Vector256.Load(b + i), result + i);
        }
        else
        {
            for (; i <= n - Vector128<byte>.Count; i += Vector128<byte>.Count)
                Vector128.Store(Vector128.Load(a + i) ^ Vector128.Load(b + i), result + i);
        }
        for (; i < n; i++)
            result[i] = (byte)(a[i] ^ b[i]);
    }

    /// <summary>Merges changed ranges across chunk boundaries and writes them as ops.</summary>
    private struct Emitter(byte* current, byte* destination, int limit, bool zeroBase)
    {
        private int _lastEnd;
        private int _rangeStart;
        private int _rangeEnd = -1;

        public int Written { get; private set; }

        public bool Add(int start, int end)
        {
            if (_rangeEnd >= 0 && start - _rangeEnd <= MergeGap)
            {
                _rangeEnd = end;
                return true;
            }
            if (_rangeEnd >= 0 && !Flush())
                return false;
            _rangeStart = start;
            _rangeEnd = end;
            return true;
        }

        public bool Finish() => _rangeEnd < 0 || Flush();

        /// <summary>Writes the open range: literals, with long zero runs split out (against zeros there are none).</summary>
        private bool Flush()
        {
            int end = _rangeEnd;
            if (zeroBase)
                return Op(_rangeStart, end, literal: true);
            int literalStart = _rangeStart;
            int position = _rangeStart;
            while (position < end)
            {
                int zero = new ReadOnlySpan<byte>(current + position, end - position).IndexOf((byte)0);
                if (zero < 0)
                    break;
                zero += position;
                int run = new ReadOnlySpan<byte>(current + zero, end - zero).IndexOfAnyExcept((byte)0);
                run = run < 0 ? end - zero : run;
                if (run >= MinZeroRun)
                {
                    if (zero > literalStart && !Op(literalStart, zero, literal: true))
                        return false;
                    if (!Op(zero, zero + run, literal: false))
                        return false;
                    literalStart = zero + run;
                }
                position = zero + run;
            }
            return literalStart >= end || Op(literalStart, end, literal: true);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private bool Op(int start, int end, bool literal)
        {
            uint skip = (uint)(start - _lastEnd);
            ulong lengthAndKind = ((ulong)(uint)(end - start) << 1) | (literal ? 0UL : 1UL);
            long needed = (long)Written + VarInt.Length(skip) + VarInt.Length(lengthAndKind) + (literal ? end - start : 0);
            if (needed > limit)
                return false;
            byte* output = destination + Written;
            output += VarInt.Write(output, skip);
            output += VarInt.Write(output, lengthAndKind);
            if (literal)
                Buffer.MemoryCopy(current + start, output, end - start, end - start);
            Written = (int)needed;
            _lastEnd = end;
            return true;
        }
    }
}
