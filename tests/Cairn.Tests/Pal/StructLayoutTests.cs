using System.Runtime.CompilerServices;
using Cairn.Pal;

namespace Cairn.Tests.Pal;

/// <summary>The managed mirrors of the ABI structs must match cairnpal.h byte for byte.</summary>
public class StructLayoutTests
{
    [Fact]
    public void Abi_structs_have_the_native_sizes()
    {
        Assert.Equal(PalBuffer.Size, Unsafe.SizeOf<PalBuffer>());
        Assert.Equal(PalWriteOp.Size, Unsafe.SizeOf<PalWriteOp>());
        Assert.Equal(NativeFsInfo.Size, Unsafe.SizeOf<NativeFsInfo>());
        Assert.Equal(NativeIoOptions.Size, Unsafe.SizeOf<NativeIoOptions>());
    }
}
