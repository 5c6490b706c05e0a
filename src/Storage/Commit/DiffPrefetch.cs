using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Commit;

/// <summary>
/// Asks for the cache lines the journal's diff of a dirty run will read first (its recorded ranges' starts, in the
/// run and in its previous version) one run ahead of the diff: both are cold by then (the previous version often in
/// the data file's mapping, the run stamped a thousand pages earlier), and a random fill's diff was mostly waiting
/// for them once it compared only those ranges.
/// </summary>
internal static unsafe class DiffPrefetch
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Run(LowLevelTransaction tx, long pageNumber, in LowLevelTransaction.DirtyRun run)
    {
        if (!Sse.IsSupported)
            return;
        byte* current = (byte*)run.Pointer;
        Sse.Prefetch0(current);
        if (run.IsNew)
            return;
        byte* previous = tx.GetCommittedPage(pageNumber);
        var ranges = (DirtyRanges*)run.Ranges;
        int length = run.PageCount * StorageConstants.PageSize;
        for (int k = 0; k < ranges->Count; k++)
        {
            int start = ranges->Start(k);
            if (start >= length)
                break;
            Sse.Prefetch0(current + start);
            Sse.Prefetch0(previous + start);
        }
    }
}
