using System.Runtime.InteropServices;

namespace Cairn.Tests.Hashing;

/// <summary>
/// The reference C implementation (Debian's libxxhash0, xxHash 0.8), the oracle for what
/// <see cref="Cairn.Hashing.Checksums"/> computes. Loaded on first use; a machine without it fails the
/// cross-check tests instead of skipping them, because a silently skipped oracle would let a wrong
/// checksum into the on-disk format.
/// </summary>
internal static unsafe class ReferenceXxHash
{
    private const string LibraryName = "libxxhash.so.0";

    // Not static initializers: a missing library must fail each test with the install hint, not
    // with a TypeInitializationException that hides it.
    private static delegate* unmanaged<byte*, nuint, ulong, ulong> s_xxh64;
    private static delegate* unmanaged<byte*, nuint, ulong, ulong> s_xxh3;

    /// <summary><c>XXH3_64bits_withSeed(data, length, seed)</c>: the checksum Cairn writes (format version 2).</summary>
    public static ulong Xxh3(ReadOnlySpan<byte> data, ulong seed)
    {
        fixed (byte* pointer = data)
            return Xxh3(pointer, data.Length, seed);
    }

    public static ulong Xxh3(byte* data, long length, ulong seed) => Call(ref s_xxh3, "XXH3_64bits_withSeed", data, length, seed);

    /// <summary><c>XXH64(data, length, seed)</c>: the checksum of format version 1.</summary>
    public static ulong Xxh64(ReadOnlySpan<byte> data, ulong seed)
    {
        fixed (byte* pointer = data)
            return Xxh64(pointer, data.Length, seed);
    }

    public static ulong Xxh64(byte* data, long length, ulong seed) => Call(ref s_xxh64, "XXH64", data, length, seed);

    private static ulong Call(ref delegate* unmanaged<byte*, nuint, ulong, ulong> function, string export, byte* data, long length, ulong seed)
    {
        if (function == null)
            function = Load(export);
        return function(data, (nuint)length, seed);
    }

    private static delegate* unmanaged<byte*, nuint, ulong, ulong> Load(string export)
    {
        if (!NativeLibrary.TryLoad(LibraryName, out IntPtr library))
            Assert.Fail($"The reference xxHash library {LibraryName} could not be loaded; install it with 'apt-get install libxxhash0' (scripts/setup.sh should do this).");
        if (!NativeLibrary.TryGetExport(library, export, out IntPtr address))
            Assert.Fail($"{LibraryName} has no {export} export; install Debian's libxxhash0 (0.8.x).");
        return (delegate* unmanaged<byte*, nuint, ulong, ulong>)address;
    }
}
