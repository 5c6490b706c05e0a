using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cairn.Hashing;

/// <summary>
/// The constants of XXH3 (xxHash's specification, doc/xxhash_spec.md): its primes, its sizes and its default
/// 192-byte secret. They are part of the algorithm, so of Cairn's on-disk format: changing one changes every checksum.
/// </summary>
internal static unsafe class Xxh3Constants
{
    public const ulong Prime32_1 = 0x9E3779B1UL;
    public const ulong Prime32_2 = 0x85EBCA77UL;
    public const ulong Prime32_3 = 0xC2B2AE3DUL;
    public const ulong Prime64_1 = 0x9E3779B185EBCA87UL;
    public const ulong Prime64_2 = 0xC2B2AE3D27D4EB4FUL;
    public const ulong Prime64_3 = 0x165667B19E3779F9UL;
    public const ulong Prime64_4 = 0x85EBCA77C2B2AE63UL;
    public const ulong Prime64_5 = 0x27D4EB2F165667C5UL;
    public const ulong PrimeMx1 = 0x165667919E3779F9UL;
    public const ulong PrimeMx2 = 0x9FB21C651E98DF25UL;

    /// <summary>The default secret's length; a seeded hash of a long input derives a secret of this length from it.</summary>
    public const int SecretLength = 192;

    /// <summary>The longest input the short and mid-size paths take; longer inputs are hashed in stripes.</summary>
    public const int MidSizeMax = 240;

    public const int StripeLength = 64;

    /// <summary>How far the secret moves from one stripe to the next.</summary>
    public const int SecretConsumeRate = 8;

    /// <summary>Stripes per block, after which the accumulators are scrambled: (192 - 64) / 8.</summary>
    public const int StripesPerBlock = (SecretLength - StripeLength) / SecretConsumeRate;

    public const int BlockLength = StripesPerBlock * StripeLength;

    /// <summary>Where the scramble reads its key: the secret's last 64 bytes.</summary>
    public const int ScrambleSecretOffset = SecretLength - StripeLength;

    /// <summary>Where the last stripe (the input's final 64 bytes) reads its key.</summary>
    public const int LastStripeSecretOffset = SecretLength - StripeLength - 7;

    /// <summary>Where merging the accumulators into the result starts reading the secret.</summary>
    public const int MergeSecretOffset = 11;

    /// <summary>The specification's minimum secret length: the mid-size path's last 16 bytes read at its end, less 17.</summary>
    public const int SecretSizeMin = 136;

    /// <summary>The default secret, as the specification lists it (kSecret).</summary>
    private static ReadOnlySpan<byte> DefaultSecretBytes
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
        get =>
        [
            0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
            0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
            0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
            0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
            0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
            0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
            0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
            0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
            0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
            0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
            0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
            0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
        ];
    }

    /// <summary>
    /// The default secret's address. The bytes live in the assembly's read-only data (a constant array behind a
    /// span property), which the GC never moves, so the pointer stays valid for the life of the process.
    /// </summary>
    public static byte* DefaultSecret
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
        get => (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetReference(DefaultSecretBytes));
    }

    /// <summary>
    /// The default secret's little-endian 64-bit word at byte <paramref name="offset"/>, for the offsets the mid-size
    /// path reads, as literals: with a constant offset the call folds to an immediate, as the JIT does not fold loads
    /// from the secret's bytes in a method compiled optimised at its first call. A test checks each against
    /// <see cref="DefaultSecret"/>; any other offset throws.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    public static ulong SecretWord(int offset) => offset switch
    {
        0 => 0xBE4BA423396CFEB8UL,
        3 => 0x81017CBE4BA42339UL,
        8 => 0x1CAD21F72C81017CUL,
        11 => 0x6DD4DE1CAD21F72CUL,
        16 => 0xDB979083E96DD4DEUL,
        19 => 0xA44072DB979083E9UL,
        24 => 0x1F67B3B7A4A44072UL,
        27 => 0xE679CB1F67B3B7A4UL,
        32 => 0x78E5C0CC4EE679CBUL,
        35 => 0xD05A8278E5C0CC4EUL,
        40 => 0x2172FFCC7DD05A82UL,
        43 => 0x4608B82172FFCC7DUL,
        48 => 0x8E2443F7744608B8UL,
        51 => 0x9035E08E2443F774UL,
        56 => 0x4C263A81E69035E0UL,
        59 => 0x52283C4C263A81E6UL,
        64 => 0xCB00C391BB52283CUL,
        67 => 0x65D088CB00C391BBUL,
        72 => 0xA32E531B8B65D088UL,
        75 => 0x486471A32E531B8BUL,
        80 => 0x4EF90DA297486471UL,
        83 => 0xEF19384EF90DA297UL,
        88 => 0xD8ACDEA946EF1938UL,
        91 => 0x76FAA8D8ACDEA946UL,
        96 => 0x3F349CE33F76FAA8UL,
        99 => 0xBBDCF93F349CE33FUL,
        104 => 0x1D4F0BC7C7BBDCF9UL,
        107 => 0xE0518A1D4F0BC7C7UL,
        112 => 0x3159B4CD4BE0518AUL,
        119 => 0x7378D9C97E9FC831UL,
        120 => 0x647378D9C97E9FC8UL,
        127 => 0xEBD33483ACC5EA64UL,
        _ => throw new ArgumentOutOfRangeException(nameof(offset), offset, "not an offset the mid-size path reads"),
    };
}
