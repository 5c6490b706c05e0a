using System.Runtime.InteropServices;

namespace Cairn.Trees;

/// <summary>
/// The fixed part of a leaf node; the key follows, then the value bytes or, for an overflow value,
/// the first page number of its run. Layout in docs/on-disk-format.md ("Tree pages").
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct LeafNodeHeader
{
    public const int Size = 7;

    public ushort KeySize;
    public byte Flags;
    /// <summary>The full value length, also for overflow values (whose node only holds a page number).</summary>
    public int ValueSize;
}

/// <summary>
/// The fixed part of a branch node; the key (the separator) follows. The first node of a branch page
/// has no key: it covers everything below the second node's separator.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct BranchNodeHeader
{
    public const int Size = 11;

    public ushort KeySize;
    public byte Flags;
    public long ChildPage;
}

/// <summary>Values of <see cref="LeafNodeHeader.Flags"/>.</summary>
internal static class LeafNodeFlags
{
    public const byte Inline = 0;
    public const byte Overflow = 1;
}
