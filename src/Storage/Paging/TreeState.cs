using System.Runtime.InteropServices;

namespace Cairn.Paging;

/// <summary>
/// A tree's metadata, stored as the value of its name in the root tree (and, for the root tree
/// itself, in the file header). Layout in docs/on-disk-format.md.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct TreeState
{
    public const int Size = 48;

    public long RootPage;
    public long EntryCount;
    public long BranchPages;
    public long LeafPages;
    public long OverflowPages;
    /// <summary>1 for a tree that is a single leaf.</summary>
    public int Depth;
    public int Flags;
}
