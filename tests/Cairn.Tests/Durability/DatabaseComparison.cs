using System.Buffers.Binary;

namespace Cairn.Tests.Durability;

/// <summary>Lists how a database differs from a <see cref="CrashWorkloadModel"/>, in words a failure report can use.</summary>
public static class DatabaseComparison
{
    private const int MaxReported = 12;

    /// <summary>The first differences (at most a dozen, then a count of the rest); empty when the database is exactly the model.</summary>
    public static IReadOnlyList<string> Differences(StorageEnvironment env, CrashWorkloadModel model)
    {
        var found = new List<string>();
        long more = 0;
        void Report(string difference)
        {
            if (found.Count < MaxReported)
                found.Add(difference);
            else
                more++;
        }

        try
        {
            using var tx = env.BeginRead();
            var names = tx.GetTreeNames();
            foreach (var name in names.Where(n => !model.Trees.ContainsKey(n)))
                Report($"extra tree '{name}' ({tx.OpenTree(name).Count} entries)");
            foreach (var name in model.Trees.Keys.Where(n => !names.Contains(n)))
                Report($"missing tree '{name}' ({model.Trees[name].Count} entries)");
            foreach (var (name, expected) in model.Trees)
            {
                if (tx.TryOpenTree(name, out var tree))
                    CompareTree(name, tree, expected, Report);
            }
        }
        catch (Exception e)
        {
            Report($"reading the database threw {e.GetType().Name}: {e.Message}");
        }

        if (more > 0)
            found.Add($"… and {more} more");
        return found;
    }

    private static void CompareTree(string name, Tree tree, SortedDictionary<byte[], byte[]> expected, Action<string> report)
    {
        using var cursor = tree.CreateCursor();
        using var model = expected.GetEnumerator();
        bool inDatabase = cursor.SeekFirst();
        bool inModel = model.MoveNext();
        long entries = 0;
        while (inDatabase || inModel)
        {
            int order = !inDatabase ? 1 : !inModel ? -1 : cursor.Key.SequenceCompareTo(model.Current.Key);
            if (order < 0)
                report($"{name}: extra key {DescribeKey(cursor.Key)} = {DescribeValue(cursor.Value)}");
            else if (order > 0)
                report($"{name}: missing key {DescribeKey(model.Current.Key)}, expected {DescribeValue(model.Current.Value)}");
            else if (!cursor.Value.SequenceEqual(model.Current.Value))
                report($"{name}: key {DescribeKey(cursor.Key)} is {DescribeValue(cursor.Value)}, expected {DescribeValue(model.Current.Value)}, " +
                    $"first differing at byte {cursor.Value.CommonPrefixLength(model.Current.Value)}");
            if (order <= 0)
            {
                entries++;
                inDatabase = cursor.MoveNext();
            }
            if (order >= 0)
                inModel = model.MoveNext();
        }
        if (tree.Count != entries)
            report($"{name}: counts {tree.Count} entries but a cursor walks {entries}");
    }

    private static string DescribeKey(ReadOnlySpan<byte> key)
    {
        foreach (byte b in key)
        {
            if (b is < 0x20 or > 0x7E)
                return key.Length == sizeof(long)
                    ? $"BE64({BinaryPrimitives.ReadInt64BigEndian(key)})"
                    : Convert.ToHexString(key);
        }
        return $"\"{System.Text.Encoding.ASCII.GetString(key)}\"";
    }

    /// <summary>Every workload value starts with BE64 of the transaction that wrote it; naming it says where a stray value came from.</summary>
    private static string DescribeValue(ReadOnlySpan<byte> value) => value.Length >= sizeof(long)
        ? $"{value.Length} bytes from transaction {BinaryPrimitives.ReadInt64BigEndian(value)}"
        : $"{value.Length} bytes {Convert.ToHexString(value)}";
}
