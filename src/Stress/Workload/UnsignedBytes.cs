namespace Cairn.Stress.Workload;

/// <summary>Orders byte arrays as the engine orders keys: unsigned lexicographic.</summary>
internal sealed class UnsignedBytes : IComparer<byte[]>
{
    public static readonly UnsignedBytes Comparer = new();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
}
