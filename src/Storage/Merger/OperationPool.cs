namespace Cairn.Merger;

/// <summary>
/// A bounded pool of operation objects of one type, shared by every environment in the process. Rent
/// and return take a lock for a few instructions: cheaper than allocating, and operations arrive at
/// most at the rate of the callers' own work.
/// </summary>
internal static class OperationPool<T> where T : class, new()
{
    private const int Capacity = 1024;
    private static readonly T?[] s_items = new T?[Capacity];
    // Guards the pooled items and their count; held for a push or a pop.
    private static readonly Lock s_gate = new();
    private static int s_count;

    public static T Rent()
    {
        lock (s_gate)
        {
            if (s_count > 0)
            {
                var item = s_items[--s_count]!;
                s_items[s_count] = null;
                return item;
            }
        }
        return new T();
    }

    public static void Return(T item)
    {
        lock (s_gate)
        {
            if (s_count < Capacity)
                s_items[s_count++] = item;
        }
    }
}
