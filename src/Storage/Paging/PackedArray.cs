namespace Cairn.Paging;

/// <summary>Insert and remove on the packed arrays of <see cref="PageTableNode"/>; counts never exceed 64.</summary>
internal static class PackedArray
{
    private const int MaxLength = 64;

    /// <summary>
    /// In place when there is room. Otherwise the array doubles: a builder that inserts many pages
    /// under one node (a commit extending a tree, say) should not copy the node once per page.
    /// </summary>
    public static T[] Insert<T>(T[] items, int count, int index, T item)
    {
        if (count < items.Length)
        {
            Array.Copy(items, index, items, index + 1, count - index);
            items[index] = item;
            return items;
        }
        return CopyWithInsert(items, count, index, item, capacity: Math.Min(MaxLength, Math.Max(count * 2, 4)));
    }

    /// <summary>Copies of published nodes are sized exactly: they are usually published again unchanged.</summary>
    public static T[] CopyWithInsert<T>(T[] items, int count, int index, T item, int capacity = 0)
    {
        var copy = new T[Math.Max(capacity, count + 1)];
        Array.Copy(items, 0, copy, 0, index);
        copy[index] = item;
        Array.Copy(items, index, copy, index + 1, count - index);
        return copy;
    }

    public static void RemoveInPlace<T>(T[] items, int count, int index)
    {
        Array.Copy(items, index + 1, items, index, count - index - 1);
        items[count - 1] = default!; // drop the reference so a removed subtree can be collected
    }

    public static T[] CopyWithout<T>(T[] items, int count, int index)
    {
        var copy = new T[count - 1];
        Array.Copy(items, 0, copy, 0, index);
        Array.Copy(items, index + 1, copy, index, count - index - 1);
        return copy;
    }
}
