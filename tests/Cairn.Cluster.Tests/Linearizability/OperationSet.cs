namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// The set of operations linearized so far, as a bitset over a partition's operation indexes, with a hash kept up
/// to date on every change (the XOR of a mixed value per member) so the memo can hash it without reading every word.
/// </summary>
internal sealed class OperationSet
{
    private readonly ulong[] _words;

    public OperationSet(int count) => _words = new ulong[(count + 63) / 64];

    private OperationSet(ulong[] words, ulong hash)
    {
        _words = words;
        Hash = hash;
    }

    public ulong Hash { get; private set; }

    public int Count { get; private set; }

    public bool Contains(int index) => (_words[index >> 6] & (1UL << index)) != 0;

    public void Add(int index)
    {
        _words[index >> 6] |= 1UL << index;
        Hash ^= Mix(index);
        Count++;
    }

    public void Remove(int index)
    {
        _words[index >> 6] &= ~(1UL << index);
        Hash ^= Mix(index);
        Count--;
    }

    public OperationSet Snapshot() => new((ulong[])_words.Clone(), Hash) { Count = Count };

    public bool SameMembers(OperationSet other) => _words.AsSpan().SequenceEqual(other._words);

    /// <summary>A 64-bit finalizer (splitmix64's), so sets differing in one member hash far apart.</summary>
    private static ulong Mix(int index)
    {
        ulong z = (ulong)index + 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}
