using System.Buffers.Binary;

namespace Cairn.Bench.Durability;

/// <summary>
/// Keys for the durability benchmarks, identical for every store and run: key <c>i</c> is 8 bytes
/// of SplitMix64's mix function applied to seed + i·γ (γ its golden-ratio increment), followed by
/// <c>i</c>, both big-endian. The first half scatters
/// successive keys over the whole key space, so each commit lands in a random leaf (as the
/// journal's "100 random puts" do) rather than appending to the rightmost one; the second half
/// makes keys distinct whatever the first half does. Computed per index, so no key set has to be
/// built for a run whose length is not known in advance.
/// </summary>
public static class DurableKeys
{
    public const int KeySize = 16;

    /// <summary>The seed every durability benchmark and the recovery survey use.</summary>
    public const ulong Seed = 0x43414952_4E445552; // "CAIRNDUR"

    /// <summary>Writes key <paramref name="index"/> into the first <see cref="KeySize"/> bytes of <paramref name="destination"/>.</summary>
    public static void Write(ulong index, Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt64BigEndian(destination, Mix(Seed + index * 0x9E3779B97F4A7C15));
        BinaryPrimitives.WriteUInt64BigEndian(destination[8..], index);
    }

    // SplitMix64's output function: a bijection on 64 bits with good avalanche.
    private static ulong Mix(ulong z)
    {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
        return z ^ (z >> 31);
    }
}
