using System.Runtime.InteropServices;
using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>Owns a native <c>cairn_file*</c>; closing it releases the descriptor and the handle's memory.</summary>
public sealed class SafePalFileHandle : SafeHandle
{
    /// <summary>Creates an invalid handle; the marshaller fills it in from a native call.</summary>
    public SafePalFileHandle() : base(0, ownsHandle: true)
    {
    }

    /// <summary>True while the handle holds no native file (null pointer).</summary>
    public override bool IsInvalid => handle == 0;

    /// <summary>Closes the native file; false if the close failed (the runtime then reports it to a debugger, nothing throws).</summary>
    protected override bool ReleaseHandle()
        => NativeMethods.cairn_file_close(handle, out _) == (int)PalStatus.Ok;
}
