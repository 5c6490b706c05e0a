using System.Runtime.InteropServices;

namespace Cairn.Paging;

/// <summary>
/// Where the environment's data starts, as of one transaction: stored in the file header (as of the last
/// synced transaction), in every journal entry (as of its transaction), and held by every published state.
/// One type for the three places, so the fields are copied as a whole and never one by one.
/// </summary>
/// <remarks>
/// Bytes (little-endian), as embedded at offset 48 of <see cref="FileHeader"/> and at offset 72 of
/// <c>JournalEntryHeader</c> (docs/on-disk-format.md):
/// <code>
///  0  8  NextPageNumber          pages below it have been allocated at some point
///  8  8  FreeSpaceDirectoryPage  the free-space map's directory page
/// 16 48  RootTree                the root tree's TreeState (it lists every named tree)
/// </code>
/// </remarks>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct RootRecord
{
    public const int Size = 64;

    /// <summary>Pages below this number have been allocated at some point; above it the file is unused.</summary>
    public long NextPageNumber;
    public long FreeSpaceDirectoryPage;
    public TreeState RootTree;

    public RootRecord(long nextPageNumber, long freeSpaceDirectoryPage, TreeState rootTree)
    {
        NextPageNumber = nextPageNumber;
        FreeSpaceDirectoryPage = freeSpaceDirectoryPage;
        RootTree = rootTree;
    }
}
