using System.Runtime.CompilerServices;

namespace Cairn.Paging;

/// <summary>
/// A page (run) a write transaction may change, with the set of byte ranges its changes are recorded in:
/// every write into it through tree code records what it touched (<see cref="Wrote(byte*, int)"/>), so the
/// journal diffs only those bytes. Reads need only the bytes (it converts to <c>byte*</c>); writing needs
/// this type, which only <see cref="IPageAccess.ModifyPage"/> and <see cref="IPageAccess.AllocatePages"/> give.
/// </summary>
internal readonly unsafe struct WritablePage
{
    public readonly byte* Bytes;
    private readonly DirtyRanges* _ranges;

    public WritablePage(byte* bytes, DirtyRanges* ranges)
    {
        Bytes = bytes;
        _ranges = ranges;
    }

    /// <summary>The recorded ranges (tests and the commit's diff read them).</summary>
    public DirtyRanges* Ranges => _ranges;

    /// <summary>Records a write of <paramref name="length"/> bytes at <paramref name="at"/>, a pointer into this page.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Wrote(byte* at, int length)
    {
        int offset = (int)(at - Bytes);
        _ranges->Add(offset, offset + length);
    }

    /// <summary>Records a write of bytes [<paramref name="start"/>, <paramref name="end"/>) of this page.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WroteRange(int start, int end) => _ranges->Add(start, end);

    /// <summary>Any byte may change: for a writer that does not record what it touches.</summary>
    public void WroteAnywhere() => _ranges->SetWhole();

    public static implicit operator byte*(WritablePage page) => page.Bytes;
}
