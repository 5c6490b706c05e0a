using System.Runtime.InteropServices;
using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Backups;

/// <summary>
/// Writes the data file of a compacted copy of one snapshot by walking its pages (docs/design.md, "Compaction"): every
/// tree page and overflow run the snapshot reaches is copied as it is, renumbered densely, its child pointers, overflow
/// pointers and (in the root tree) tree roots rewritten and its checksum sealed again for its new number. Free space
/// stays behind. The file is written front to back in one pass: its layout is known before the first byte, because each
/// tree's page counts (its <see cref="TreeState"/>) say how many pages it takes.
/// </summary>
/// <remarks>
/// Layout: header copies (pages 0, 1), the free-space directory (2), its bitmap sections (3…, all pages in use), the
/// root tree, then each named tree in name order. Within a tree pages go breadth first, in key order on each level,
/// so the leaves follow each other in key order; its overflow runs come after its leaves. Numbers are handed out as
/// pages are queued and pages are written as they leave the queue, so each page's number is where it lands.
/// </remarks>
internal sealed unsafe class CompactingCopy(IPageAccess snapshot, string sourcePath, Action<long, long>? progress, CopyPace? pace,
    CancellationToken cancellation)
{
    private const long DirectoryPage = 2;
    private const long FirstSectionPage = 3;

    private readonly Queue<(long Source, long Target, bool Overflow)> _queue = new();
    private PageStreamWriter _output = null!;
    private long _nextNumber;

    /// <summary>
    /// Writes the copy of the snapshot whose root tree is <paramref name="rootTree"/> to <paramref name="output"/> with
    /// a header for <paramref name="environmentId"/> as of <paramref name="transactionId"/>; returns the pages written.
    /// </summary>
    public long Run(TreeState rootTree, Guid environmentId, long transactionId, SlicedFileWriter output)
    {
        var trees = NamedTrees(rootTree);
        long treePages = PagesOf(rootTree) + trees.Sum(t => PagesOf(t));
        int sections = SectionsFor(treePages);
        long rootStart = FirstSectionPage + sections;
        var newRoots = new Dictionary<long, long>(trees.Count);
        long start = rootStart + PagesOf(rootTree);
        foreach (var tree in trees)
        {
            newRoots[tree.RootPage] = start;
            start += PagesOf(tree);
        }
        var newRootTree = rootTree with { RootPage = rootStart };
        using var writer = new PageStreamWriter(output, (bytes, done) =>
        {
            pace?.Copied(bytes);
            progress?.Invoke(done * StorageConstants.PageSize, start * StorageConstants.PageSize);
        });
        _output = writer;
        WriteHeaderPages(new RootRecord(start, DirectoryPage, newRootTree), environmentId, transactionId);
        WriteFreeSpacePages(sections);
        _nextNumber = rootStart;
        CopyTree(rootTree, newRoots);
        foreach (var tree in trees)
            CopyTree(tree, directory: null);
        writer.Flush();
        if (writer.PagesWritten != start)
            // The plan comes from the trees' own page counts: a walk that reaches another number of pages means the
            // source's tree metadata disagrees with its pages.
            throw new StorageFormatException(sourcePath, rootTree.RootPage * StorageConstants.PageSize,
                $"the trees' page counts promise {start} pages in the compacted copy, their walk reached {writer.PagesWritten}");
        return start;
    }

    private static long PagesOf(TreeState tree) => tree.BranchPages + tree.LeafPages + tree.OverflowPages;

    /// <summary>Bitmap sections for a file of this many tree pages plus the pages before them, themselves included.</summary>
    private static int SectionsFor(long treePages)
    {
        int sections = 1;
        while ((long)sections * FreeSpaceMap.BitsPerSection < FirstSectionPage + sections + treePages)
            sections++;
        return sections;
    }

    /// <summary>Every named tree's state, in name order (the root tree's key order).</summary>
    private List<TreeState> NamedTrees(TreeState rootTree)
    {
        var trees = new List<TreeState>();
        var cursor = new BTreeCursor(new BTree(snapshot, rootTree));
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
        {
            if (cursor.Value.Length != TreeState.Size)
                throw new StorageFormatException(sourcePath, rootTree.RootPage * StorageConstants.PageSize,
                    $"the root tree's entry for '{TreeDirectory.DecodeName(cursor.Key)}' is {cursor.Value.Length} bytes, not a {TreeState.Size}-byte tree state");
            trees.Add(MemoryMarshal.Read<TreeState>(cursor.Value));
        }
        return trees;
    }

    private void WriteHeaderPages(RootRecord root, Guid environmentId, long transactionId)
    {
        var header = new FileHeader
        {
            Magic = FileHeader.MagicValue,
            FormatVersion = FileHeader.CurrentFormatVersion,
            PageSize = StorageConstants.PageSize,
            EnvironmentId = environmentId,
            Revision = 1,
            LastTransactionId = transactionId,
            Root = root,
        };
        header.Checksum = HeaderStore.ComputeChecksum(header);
        var bytes = MemoryMarshal.AsBytes(new ReadOnlySpan<FileHeader>(in header));
        for (int copy = 0; copy < 2; copy++)
            bytes.CopyTo(new Span<byte>(_output.NextPages(1), StorageConstants.PageSize));
    }

    private void WriteFreeSpacePages(int sections)
    {
        byte* directory = _output.NextPages(1);
        FreeSpaceMap.FormatDenseDirectory(directory, DirectoryPage, FirstSectionPage, sections);
        PageChecksum.Stamp(directory, DirectoryPage, 1);
        for (int s = 0; s < sections; s++)
        {
            byte* section = _output.NextPages(1);
            FreeSpaceMap.InitializeSection(section, FirstSectionPage + s);
            PageChecksum.Stamp(section, FirstSectionPage + s, 1);
        }
    }

    /// <summary>
    /// Copies one tree breadth first. <paramref name="directory"/> (the root tree only) maps each named tree's old root
    /// page to its new one, written into the tree states the root tree's leaves hold.
    /// </summary>
    private void CopyTree(TreeState tree, Dictionary<long, long>? directory)
    {
        long first = _nextNumber;
        Enqueue(tree.RootPage, overflow: false, pages: 1);
        while (_queue.TryDequeue(out var next))
        {
            cancellation.ThrowIfCancellationRequested();
            if (next.Target != _output.PagesWritten)
                throw new StorageFormatException(sourcePath, next.Source * StorageConstants.PageSize,
                    $"page {next.Source} reached past its tree's page count (numbered {next.Target}, lands at {_output.PagesWritten})");
            byte* source = snapshot.GetPage(next.Source);
            var flags = ((PageHeader*)source)->Flags;
            if (next.Overflow)
            {
                if (flags != PageFlags.Overflow)
                    throw new TreeCorruptionException(next.Source, $"a leaf points at it as an overflow run, but its flags are {flags}");
                CopyOverflowRun(source, next.Target);
            }
            else if (flags == PageFlags.Branch)
                CopyBranch(source, next.Target);
            else if (flags == PageFlags.Leaf)
                CopyLeaf(source, next.Target, directory);
            else
                throw new TreeCorruptionException(next.Source, $"a branch points at it as a tree page, but its flags are {flags}");
        }
        if (_nextNumber - first != PagesOf(tree))
            throw new StorageFormatException(sourcePath, tree.RootPage * StorageConstants.PageSize,
                $"the tree rooted at page {tree.RootPage} reaches {_nextNumber - first} pages, its state counts {PagesOf(tree)}");
    }

    private long Enqueue(long source, bool overflow, int pages)
    {
        long target = _nextNumber;
        _nextNumber += pages;
        _queue.Enqueue((source, target, overflow));
        return target;
    }

    private void CopyBranch(byte* source, long target)
    {
        byte* page = CopyTreePage(source);
        int count = TreePage.Count(page);
        for (int i = 0; i < count; i++)
        {
            var node = (BranchNodeHeader*)TreePage.Node(page, i);
            node->ChildPage = Enqueue(node->ChildPage, overflow: false, pages: 1);
        }
        PageChecksum.Stamp(page, target, 1);
    }

    private void CopyLeaf(byte* source, long target, Dictionary<long, long>? directory)
    {
        byte* page = CopyTreePage(source);
        int count = TreePage.Count(page);
        for (int i = 0; i < count; i++)
        {
            byte* node = TreePage.Node(page, i);
            byte* value = TreePage.LeafValueStart(node);
            if (TreePage.IsOverflow(node))
            {
                long run = TreePage.OverflowPage(node);
                int pages = PageChecksum.RunLength(snapshot.GetPage(run));
                System.Runtime.CompilerServices.Unsafe.WriteUnaligned(value, Enqueue(run, overflow: true, pages));
            }
            else if (directory is not null)
            {
                // The root tree: each value is a named tree's state, whose root moved.
                var state = (TreeState*)value;
                if (((LeafNodeHeader*)node)->ValueSize != TreeState.Size || !directory.TryGetValue(state->RootPage, out long root))
                    throw new TreeCorruptionException(target, $"root tree entry {i} is not a tree state the copy planned for");
                state->RootPage = root;
            }
        }
        PageChecksum.Stamp(page, target, 1);
    }

    /// <summary>Copies the page into the output; the caller rewrites its pointers and seals it.</summary>
    private byte* CopyTreePage(byte* source)
    {
        byte* page = _output.NextPages(1);
        Buffer.MemoryCopy(source, page, StorageConstants.PageSize, StorageConstants.PageSize);
        return page;
    }

    /// <summary>
    /// A run's checksum covers everything but its page number, seeded with that number: it is computed again over the
    /// source for the new number, and the run goes out as it is behind its new header.
    /// </summary>
    private void CopyOverflowRun(byte* source, long target)
    {
        int pages = PageChecksum.RunLength(source);
        var header = *(PageHeader*)source;
        header.PageNumber = target;
        header.Checksum = PageChecksum.Compute(source, target, pages);
        _output.Append((byte*)&header, PageHeader.Size);
        _output.Append(source + PageHeader.Size, (long)pages * StorageConstants.PageSize - PageHeader.Size);
    }
}
