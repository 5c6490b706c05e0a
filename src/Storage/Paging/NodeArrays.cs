using System.Threading;

namespace Cairn.Paging;

/// <summary>
/// The packed arrays behind <see cref="PageTableNode.Items"/>: element 0 is a header, entries are at
/// 1..count. The header records the builder session that created the array; only that session may
/// change it in place, every other one copies it first. Sessions end when their builder publishes,
/// so an array reachable from a published table is never written again.
/// </summary>
internal static class NodeArrays
{
    private const int MaxEntries = 64;
    private static long s_lastSession;

    /// <summary>A session number no array has been created under yet.</summary>
    public static long NewSession() => Interlocked.Increment(ref s_lastSession);

    public static bool IsOwnedBy(PageTableNode[] children, long session) => children[0].Bitmap == (ulong)session;

    public static bool IsOwnedBy(PageVersion[] versions, long session) => versions[0].TransactionId == session;

    public static PageTableNode[] NewChildren(long session, int capacity)
    {
        var children = new PageTableNode[1 + capacity];
        children[0].Bitmap = (ulong)session;
        return children;
    }

    public static PageVersion[] NewVersions(long session, PageVersion version)
        => [new PageVersion(0, session, 0), version];

    /// <summary>The array itself if the session owns it, otherwise a copy that it owns.</summary>
    public static PageTableNode[] Own(PageTableNode[] children, int count, long session)
    {
        if (IsOwnedBy(children, session))
            return children;
        PageTableNode[] copy = children.AsSpan(0, 1 + count).ToArray();
        copy[0].Bitmap = (ulong)session;
        return copy;
    }

    public static PageVersion[] Own(PageVersion[] versions, int count, long session)
    {
        if (IsOwnedBy(versions, session))
            return versions;
        PageVersion[] copy = versions.AsSpan(0, 1 + count).ToArray();
        copy[0] = new PageVersion(0, session, 0);
        return copy;
    }

    public static PageTableNode[] Insert(PageTableNode[] children, int count, int index, PageTableNode child, long session)
    {
        if (IsOwnedBy(children, session))
            return InsertInPlaceOrGrow(children, count, index, child);
        PageTableNode[] copy = CopyWithInsert(children, count, index, child, capacity: count + 1);
        copy[0].Bitmap = (ulong)session;
        return copy;
    }

    public static PageVersion[] Insert(PageVersion[] versions, int count, int index, PageVersion version, long session)
    {
        if (IsOwnedBy(versions, session))
            return InsertInPlaceOrGrow(versions, count, index, version);
        // Copies of published arrays are sized exactly: most are published again without growing.
        PageVersion[] copy = CopyWithInsert(versions, count, index, version, capacity: count + 1);
        copy[0] = new PageVersion(0, session, 0);
        return copy;
    }

    /// <summary>Removes entry <paramref name="index"/> of an owned array.</summary>
    public static void RemoveInPlace<T>(T[] items, int count, int index)
    {
        Array.Copy(items, 2 + index, items, 1 + index, count - index - 1);
        items[count] = default!; // drop the reference so a removed subtree can be collected
    }

    /// <summary>
    /// In place when there is room. Otherwise the array grows by a quarter: a builder inserting many
    /// pages under one node (a commit allocating a run of pages) should not copy it once per page,
    /// yet the slack ends up in published tables, whose size is the readers' cache footprint
    /// (doubling made a 100,000-entry table 4.1 MB, a quarter 3.4 MB, exact sizes 3.2 MB).
    /// </summary>
    private static T[] InsertInPlaceOrGrow<T>(T[] items, int count, int index, T item)
    {
        if (1 + count < items.Length)
        {
            Array.Copy(items, 1 + index, items, 2 + index, count - index);
            items[1 + index] = item;
            return items;
        }
        return CopyWithInsert(items, count, index, item, capacity: Math.Min(MaxEntries, count + 1 + count / 4));
    }

    /// <summary>Copies header and entries, with <paramref name="item"/> inserted; the header is the caller's to set.</summary>
    private static T[] CopyWithInsert<T>(T[] items, int count, int index, T item, int capacity)
    {
        var copy = new T[1 + capacity];
        Array.Copy(items, 0, copy, 0, 1 + index);
        copy[1 + index] = item;
        Array.Copy(items, 1 + index, copy, 2 + index, count - index);
        return copy;
    }
}
