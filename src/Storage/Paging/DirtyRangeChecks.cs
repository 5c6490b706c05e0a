namespace Cairn.Paging;

/// <summary>
/// The safety net under <see cref="DirtyRanges"/>: a byte changed outside its page's recorded ranges would be
/// left out of the journal's diff, silently lost after recovery. With the checks on, every diffed page is also
/// compared outside its ranges and a difference throws <see cref="DirtyRangeMissException"/>. One switch: on in
/// Debug builds, off in Release unless set, as the runtime-config switch <see cref="SwitchName"/> (the test
/// project sets it, so every test that commits checks every page it diffs) or as the environment variable
/// <see cref="VariableName"/> ("1" or "0"; the processes a test starts inherit it). Read once: the JIT folds the
/// off case away.
/// </summary>
internal static unsafe class DirtyRangeChecks
{
    public const string SwitchName = "Cairn.Storage.CheckDirtyRanges";
    public const string VariableName = "CAIRN_CHECK_DIRTY_RANGES";

    public static readonly bool Enabled = Environment.GetEnvironmentVariable(VariableName) switch
    {
        "1" => true,
        "0" => false,
        _ => AppContext.TryGetSwitch(SwitchName, out bool on) ? on : IsDebugBuild,
    };

    private static long s_pagesChecked;
    private static long s_misses;

    /// <summary>Pages compared outside their ranges since the process started.</summary>
    public static long PagesChecked => Interlocked.Read(ref s_pagesChecked);

    /// <summary>Misses found (each also thrown), in case a caller swallowed the exception.</summary>
    public static long Misses => Interlocked.Read(ref s_misses);

    private static bool IsDebugBuild
    {
        get
        {
#if DEBUG
            return true;
#else
            return false;
#endif
        }
    }

    /// <summary>
    /// Throws if <paramref name="current"/> differs from <paramref name="previous"/> (both <paramref name="length"/>
    /// bytes, the run at <paramref name="pageNumber"/>) anywhere outside <paramref name="ranges"/>.
    /// </summary>
    public static void Verify(long pageNumber, byte* current, byte* previous, int length, DirtyRanges* ranges)
    {
        Interlocked.Increment(ref s_pagesChecked);
        int position = 0;
        for (int k = 0; k <= ranges->Count; k++)
        {
            int gapEnd = k < ranges->Count ? Math.Min(ranges->Start(k), length) : length;
            if (gapEnd > position)
            {
                var now = new ReadOnlySpan<byte>(current + position, gapEnd - position);
                int same = now.CommonPrefixLength(new ReadOnlySpan<byte>(previous + position, gapEnd - position));
                if (same < gapEnd - position)
                {
                    Interlocked.Increment(ref s_misses);
                    throw new DirtyRangeMissException(pageNumber, position + same, ranges->ToString());
                }
            }
            if (k < ranges->Count)
                position = Math.Max(position, Math.Min(ranges->End(k), length));
        }
    }
}

/// <summary>
/// A page changed outside the byte ranges its writer recorded: a bug in a write path (never bad input), found
/// before the journal entry that would have lost the change was written.
/// </summary>
internal sealed class DirtyRangeMissException(long pageNumber, int offset, string ranges)
    : InvalidOperationException($"Page {pageNumber}: byte {offset} changed outside the ranges its writer recorded ({ranges}); its journal diff would have left the change out.")
{
    public long PageNumber { get; } = pageNumber;

    public int Offset { get; } = offset;
}
