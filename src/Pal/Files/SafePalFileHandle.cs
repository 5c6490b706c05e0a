using System.Runtime.InteropServices;
using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>Owns a native <c>cairn_file*</c>; closing it releases the descriptor and the handle's memory.</summary>
public sealed class SafePalFileHandle : SafeHandle
{
    public SafePalFileHandle() : base(0, ownsHandle: true)
    {
    }

    public override bool IsInvalid => handle == 0;

    protected override bool ReleaseHandle()
        => NativeMethods.cairn_file_close(handle, out _) == (int)PalStatus.Ok;
}
