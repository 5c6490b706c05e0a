using System.Runtime.CompilerServices;
using Cairn.Paging;

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
    /// <summary>Unchanged bytes between two changed ranges up to this many are sent as literal bytes (cheaper than a new op); one less than a power of two.</summary>
    public const int MergeGap = 3;

    /// <summary>Zero bytes inside a changed range become their own op from this length (diffs against a previous version only; a power of two).</summary>
    public const int MinZeroRun = 8;

    /// <summary>
    /// Writes the ops that turn <paramref name="previous"/> (null: all zeros) into
    /// <paramref name="current"/>, both <paramref name="length"/> bytes, to
    /// <paramref name="destination"/>; returns the bytes written, or −1 as soon as they would exceed
    /// <paramref name="limit"/> (nothing past <c>destination + limit</c> is ever written).
    /// <paramref name="changed"/> (diffs against a previous version only; null: the whole run): ranges outside which
    /// the two are known to be equal, so a difference is looked for only inside them. The ops are the same either
    /// way: a changed stretch is still followed to its end byte by byte, wherever that lies.
    /// </summary>
    // A kernel run on every commit: optimized from its first call (tier-0 code is many times slower).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static int Encode(byte* current, byte* previous, int length, byte* destination, int limit, DirtyRanges* changed = null)
    {
        var emitter = new Emitter(current, destination, limit, zeroBase: previous == null);
        if (previous == null)
            changed = null;
        int position = 0;
        while (position < length)
        {
            int start = changed == null
                ? EqualRuns.FirstDifference(current, previous, position, length)
                : FirstDifferenceIn(changed, current, previous, position, length);
            if (start < 0)
                break;
            int end;
            // Against zeros every changed byte is a literal byte: a range longer than what is left
            // of the limit cannot fit, so the scan stops there.
            long bound = previous == null ? start + (long)emitter.Remaining + 1 + MergeGap : long.MaxValue;
            if (bound < length)
            {
                end = EqualRuns.Find(current, previous, start, (int)bound, MergeGap + 1, runToEndCounts: false);
                if (end == bound)
                    return -1;
            }
            else
            {
                end = EqualRuns.Find(current, previous, start, length, MergeGap + 1, runToEndCounts: true);
            }
            if (!emitter.Add(start, end))
                return -1;
            position = end;
        }
        return emitter.Finish() ? emitter.Written : -1;
    }

    /// <summary>The first difference at or after <paramref name="position"/> inside <paramref name="changed"/> (sorted ranges); -1 if none.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int FirstDifferenceIn(DirtyRanges* changed, byte* current, byte* previous, int position, int length)
    {
        int count = changed->Count;
        for (int k = 0; k < count; k++)
        {
            int end = Math.Min(changed->End(k), length);
            if (end <= position)
                continue;
            int start = Math.Max(changed->Start(k), position);
            if (start >= end)
                continue;
            int difference = EqualRuns.FirstDifference(current, previous, start, end);
            if (difference >= 0)
                return difference;
        }
        return -1;
    }

    /// <summary>Merges changed ranges separated by short gaps and writes them as ops.</summary>
    private struct Emitter(byte* current, byte* destination, int limit, bool zeroBase)
    {
        private int _lastEnd;
        private int _rangeStart;
        private int _rangeEnd = -1;

        public int Written { get; private set; }

        /// <summary>Bytes left before the limit.</summary>
        public readonly int Remaining => limit - Written;

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
            while (literalStart < end)
            {
                int zero = EqualRuns.Find(current, null, literalStart, end, MinZeroRun, runToEndCounts: false);
                if (zero == end)
                    break;
                int run = new ReadOnlySpan<byte>(current + zero, end - zero).IndexOfAnyExcept((byte)0);
                run = run < 0 ? end - zero : run;
                if (zero > literalStart && !Op(literalStart, zero, literal: true))
                    return false;
                if (!Op(zero, zero + run, literal: false))
                    return false;
                literalStart = zero + run;
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
