using System.Threading;

namespace Cairn.Paging;

/// <summary>
/// The packed arrays behind <see cref="PageTableNode.Items"/>: element 0 is a header, entries are at
/// 1..count. The header records the builder session that created the array; only that session may
/// change it in place, every other one copies it first. Sessions end when their builder publishes,
/// so an array reachable from a published table is never written again.
/// <para>
/// New arrays come from <see cref="NodeArrayPool"/>. A published array a builder copies is added to
/// <c>replaced</c> (when given): once the table built is published and its predecessor's readers are gone,
/// the reclaimer returns it to the pool. An owned array a builder outgrows or empties goes back at once:
/// no table reaches it.
/// </para>
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
        var children = NodeArrayPool.RentChildren(1 + capacity);
        children[0].Bitmap = (ulong)session;
        return children;
    }

    public static PageVersion[] NewVersions(long session, PageVersion version)
    {
        var versions = NodeArrayPool.RentVersions(2);
        versions[0] = new PageVersion(0, session, 0);
        versions[1] = version;
        return versions;
    }

    /// <summary>The array itself if the session owns it, otherwise a copy that it owns.</summary>
    public static PageTableNode[] Own(PageTableNode[] children, int count, long session, List<object>? replaced)
    {
        if (IsOwnedBy(children, session))
            return children;
        PageTableNode[] copy = NodeArrayPool.RentChildren(1 + count);
        children.AsSpan(0, 1 + count).CopyTo(copy);
        copy[0].Bitmap = (ulong)session;
        replaced?.Add(children);
        return copy;
    }

    public static PageVersion[] Own(PageVersion[] versions, int count, long session, List<object>? replaced)
    {
        if (IsOwnedBy(versions, session))
            return versions;
        PageVersion[] copy = NodeArrayPool.RentVersions(1 + count);
        versions.AsSpan(0, 1 + count).CopyTo(copy);
        copy[0] = new PageVersion(0, session, 0);
        replaced?.Add(versions);
        return copy;
    }

    public static PageTableNode[] Insert(PageTableNode[] children, int count, int index, PageTableNode child, long session, List<object>? replaced)
    {
        if (IsOwnedBy(children, session))
            return InsertInPlaceOrGrow(children, count, index, child);
        PageTableNode[] copy = CopyWithInsert(children, count, index, child, NodeArrayPool.RentChildren(1 + count + 1));
        copy[0].Bitmap = (ulong)session;
        replaced?.Add(children);
        return copy;
    }

    public static PageVersion[] Insert(PageVersion[] versions, int count, int index, PageVersion version, long session, List<object>? replaced)
    {
        if (IsOwnedBy(versions, session))
            return InsertInPlaceOrGrow(versions, count, index, version);
        // Copies of published arrays are sized exactly: most are published again without growing.
        PageVersion[] copy = CopyWithInsert(versions, count, index, version, NodeArrayPool.RentVersions(1 + count + 1));
        copy[0] = new PageVersion(0, session, 0);
        replaced?.Add(versions);
        return copy;
    }

    /// <summary>Removes entry <paramref name="index"/> of an owned array.</summary>
    public static void RemoveInPlace<T>(T[] items, int count, int index)
    {
        Array.Copy(items, 2 + index, items, 1 + index, count - index - 1);
        items[count] = default!; // drop the reference so a removed subtree can be collected
    }

    /// <summary>
    /// An array a builder drops from its table: back to the pool now if the session owns it (nothing else
    /// reaches it), else onto <paramref name="replaced"/> for the reclaimer.
    /// </summary>
    public static void Drop(object items, long session, List<object>? replaced)
    {
        bool owned = items is PageTableNode[] children ? IsOwnedBy(children, session) : IsOwnedBy((PageVersion[])items, session);
        if (owned)
            NodeArrayPool.Return(items);
        else
            replaced?.Add(items);
    }

    /// <summary>
    /// In place when there is room. Otherwise the array grows by a quarter: a builder inserting many
    /// pages under one node (a commit allocating a run of pages) should not copy it once per page,
    /// yet the slack ends up in published tables, whose size is the readers' cache footprint
    /// (doubling made a 100,000-entry table 4.1 MB, a quarter 3.4 MB, exact sizes 3.2 MB).
    /// The outgrown array is owned (no table reaches it) and goes back to the pool.
    /// </summary>
    private static T[] InsertInPlaceOrGrow<T>(T[] items, int count, int index, T item)
    {
        if (1 + count < items.Length)
        {
            Array.Copy(items, 1 + index, items, 2 + index, count - index);
            items[1 + index] = item;
            return items;
        }
        int capacity = Math.Min(MaxEntries, count + 1 + count / 4);
        T[] grown = CopyWithInsert(items, count, index, item, Rent<T>(1 + capacity));
        NodeArrayPool.Return(items);
        return grown;
    }

    private static T[] Rent<T>(int length)
        => typeof(T) == typeof(PageTableNode) ? (T[])(object)NodeArrayPool.RentChildren(length) : (T[])(object)NodeArrayPool.RentVersions(length);

    /// <summary>Copies header and entries into <paramref name="copy"/>, with <paramref name="item"/> inserted; the header is the caller's to set.</summary>
    private static T[] CopyWithInsert<T>(T[] items, int count, int index, T item, T[] copy)
    {
        Array.Copy(items, 0, copy, 0, 1 + index);
        copy[1 + index] = item;
        Array.Copy(items, 1 + index, copy, 2 + index, count - index);
        return copy;
    }
}
