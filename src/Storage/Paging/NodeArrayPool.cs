namespace Cairn.Paging;

/// <summary>
/// Page-table arrays (<see cref="NodeArrays"/>) no table reaches any more, kept by length for the next
/// builder's copies. A commit that touches pages all over the file copies most of the table's leaf arrays;
/// without reuse that was most of what a random fill allocated (279 of 286 bytes per put at 1,000,000 keys).
/// An array comes here only when nothing can read it: arrays a builder replaced in a published table once
/// the reclaimer has seen every reader of that table go (<see cref="PageTable.Builder"/>'s replaced list),
/// and arrays a builder created and dropped before publishing. Shared by every environment of the process:
/// the arrays are plain managed memory.
/// </summary>
internal static class NodeArrayPool
{
    /// <summary>
    /// What the pool keeps at most, in array elements of both kinds (16 bytes per child, 24 per version): up to
    /// about 24 MB. Arrays come back only once the states that reach them are released, which lazy commits
    /// delay until their journal write (up to 8 MiB of entries): a random fill of 1,000,000 keys retires about
    /// 12,000 elements per transaction, so a few hundred thousand wait at a time.
    /// </summary>
    private const long MaxPooledElements = 1_000_000;
    private const int MaxLength = 1 + 64;

    // Guards the stacks and the count: builders rent on the writer's and the flusher's threads, reclaimers of
    // any environment return under their state lock.
    private static readonly Lock s_gate = new();
    private static readonly Stack<PageTableNode[]>[] s_children = NewBuckets<PageTableNode>();
    private static readonly Stack<PageVersion[]>[] s_versions = NewBuckets<PageVersion>();
    private static long s_pooledElements;

    /// <summary>An array of exactly <paramref name="length"/> elements, all default (children are cleared when returned).</summary>
    public static PageTableNode[] RentChildren(int length) => Rent(s_children, length);

    /// <summary>An array of exactly <paramref name="length"/> elements; its contents are undefined (the caller writes what it uses).</summary>
    public static PageVersion[] RentVersions(int length) => Rent(s_versions, length);

    /// <summary>Takes back an array nothing reaches any more (either kind); kept if the pool has room.</summary>
    public static void Return(object array)
    {
        if (array is PageTableNode[] children)
        {
            // Its entries hold child arrays: dropped so they can be collected (and a rented array starts empty).
            Array.Clear(children);
            Keep(s_children, children);
        }
        else
        {
            Keep(s_versions, (PageVersion[])array);
        }
    }

    private static T[] Rent<T>(Stack<T[]>[] buckets, int length)
    {
        lock (s_gate)
        {
            if (length <= MaxLength && buckets[length].TryPop(out var array))
            {
                s_pooledElements -= length;
                return array;
            }
        }
        return new T[length];
    }

    private static void Keep<T>(Stack<T[]>[] buckets, T[] array)
    {
        lock (s_gate)
        {
            if (array.Length <= MaxLength && s_pooledElements + array.Length <= MaxPooledElements)
            {
                buckets[array.Length].Push(array);
                s_pooledElements += array.Length;
            }
        }
    }

    private static Stack<T[]>[] NewBuckets<T>()
    {
        var buckets = new Stack<T[]>[MaxLength + 1];
        for (int i = 0; i < buckets.Length; i++)
            buckets[i] = new Stack<T[]>();
        return buckets;
    }
}
