using Cairn.Paging;

namespace Cairn.Tests.Support;

/// <summary>
/// A page buffer outside any transaction, for tests that drive the slotted-page primitives directly: its writes
/// are recorded into a whole-page range set of the thread's that nothing reads (there is no previous version to
/// diff against).
/// </summary>
internal static unsafe class LoosePage
{
    [ThreadStatic]
    private static DirtyRanges[]? t_sink;

    public static WritablePage Of(byte* page)
    {
        t_sink ??= GC.AllocateArray<DirtyRanges>(1, pinned: true);
        fixed (DirtyRanges* ranges = t_sink)
        {
            ranges->SetWhole();
            return new WritablePage(page, ranges); // pinned: the address outlives the fixed block
        }
    }
}
