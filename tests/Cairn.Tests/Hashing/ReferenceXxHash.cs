using System.Runtime.InteropServices;

namespace Cairn.Tests.Hashing;

/// <summary>
/// The reference C implementation (Debian's libxxhash0), the oracle for <see cref="Cairn.Hashing.XxHash64"/>.
/// Loaded on first use; a machine without it fails the cross-check tests instead of skipping them,
/// because a silently skipped oracle would let a wrong checksum into the on-disk format.
/// </summary>
internal static unsafe class ReferenceXxHash
{
    private const string LibraryName = "libxxhash.so.0";

    // Not a static initializer: a missing library must fail each test with the install hint, not
    // with a TypeInitializationException that hides it.
    private static delegate* unmanaged<byte*, nuint, ulong, ulong> s_xxh64;

    public static ulong Hash(ReadOnlySpan<byte> data, ulong seed)
    {
        if (s_xxh64 == null)
            s_xxh64 = Load();
        fixed (byte* pointer = data)
            return s_xxh64(pointer, (nuint)data.Length, seed);
    }

    private static delegate* unmanaged<byte*, nuint, ulong, ulong> Load()
    {
        if (!NativeLibrary.TryLoad(LibraryName, out IntPtr library))
            Assert.Fail($"The reference xxHash library {LibraryName} could not be loaded; install it with 'apt-get install libxxhash0' (scripts/setup.sh should do this).");
        if (!NativeLibrary.TryGetExport(library, "XXH64", out IntPtr export))
            Assert.Fail($"{LibraryName} has no XXH64 export; install Debian's libxxhash0 (0.8.x).");
        return (delegate* unmanaged<byte*, nuint, ulong, ulong>)export;
    }
}
