using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;

namespace Cairn.Trees;

/// <summary>
/// Software prefetches for a page search. A point read in a tree far larger than the caches spends most of its time
/// waiting for memory: a plain binary search misses on the page header, then on the slot array, then on one node per
/// probe, each miss waiting for the one before (docs/benchmarks.md, "Where a point read's time goes"). Asking for the
/// header's and the first slots' lines together, and for the nodes of the next three probe levels (seven nodes) at
/// once, turns those serial misses into a few rounds that overlap. Prefetches are hints: they never fault, change no
/// result, and compile to nothing where the CPU has no prefetch instruction the runtime exposes (arm64).
/// </summary>
internal static unsafe class ProbePrefetch
{
    /// <summary>Probe levels warmed per batch: 2^3 - 1 = 7 nodes, within the CPU's outstanding-miss budget.</summary>
    public const int Levels = 3;

    /// <summary>Ranges narrower than this are probed at once; warming them first would only add slot reads.</summary>
    private const int SmallestRange = 3;

    /// <summary>Lines of a page asked for as soon as its address is known: the header and 120 slots after it.</summary>
    private const int HeadLines = 4;

    private const int LineSize = 64;

    /// <summary>Farthest byte past a node's start a probe is expected to read: the header and the key, within one line.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int KeyReach(int nodeHeaderSize, int keyLength) => Math.Min(nodeHeaderSize + keyLength, LineSize) - 1;

    /// <summary>The page's header and first slots, before the header is read.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void PageHead(byte* page)
    {
        if (!Sse.IsSupported)
            return;
        for (int line = 0; line < HeadLines; line++)
            Sse.Prefetch0(page + line * LineSize);
    }

    /// <summary>
    /// The nodes the next <see cref="Levels"/> probes of a binary search over slots [low, high] can touch, whichever
    /// way each comparison goes; the midpoint rule must be the search's own, (low + high) / 2.
    /// </summary>
    public static void NextLevels(byte* page, ushort* slots, int low, int high, int reach)
    {
        if (!Sse.IsSupported || high - low + 1 < SmallestRange)
            return;
        int middle = (int)((uint)(low + high) >> 1);
        Node(page, slots, middle, reach);
        Subtree(page, slots, low, middle - 1, reach);
        Subtree(page, slots, middle + 1, high, reach);
    }

    /// <summary>Two levels under one probe: the midpoint of [low, high] and the midpoints of its halves.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Subtree(byte* page, ushort* slots, int low, int high, int reach)
    {
        if (low > high)
            return;
        int middle = (int)((uint)(low + high) >> 1);
        Node(page, slots, middle, reach);
        if (low < middle)
            Node(page, slots, (int)((uint)(low + middle - 1) >> 1), reach);
        if (middle < high)
            Node(page, slots, (int)((uint)(middle + 1 + high) >> 1), reach);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Node(byte* page, ushort* slots, int index, int reach)
    {
        byte* node = page + slots[index];
        Sse.Prefetch0(node);
        Sse.Prefetch0(node + reach);
    }
}
