using System.Buffers.Binary;
using Cairn.Stress.Workload;

namespace Cairn.Stress.Checking;

/// <summary>How a database differs from the expected state: readable differences, and the transactions they implicate.</summary>
/// <param name="Differences">The first differences (at most a dozen, then a count of the rest); empty when the database is exactly the model.</param>
/// <param name="Implicated">
/// Transactions seen partly: the writer of an expected value that is missing or replaced, or the writer past the
/// model's position of a value that should not be there. Every value carries its writer's number.
/// </param>
internal sealed record ComparisonResult(IReadOnlyList<string> Differences, IReadOnlySet<long> Implicated)
{
    public bool IsExact => Differences.Count == 0;
}

/// <summary>Compares a whole database with a <see cref="StressModel"/>, tree by tree and key by key.</summary>
internal static class DatabaseComparison
{
    private const int MaxReported = 12;

    public static ComparisonResult Compare(StorageEnvironment env, StressModel model)
    {
        var found = new List<string>();
        var implicated = new HashSet<long>();
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
                    CompareTree(name, tree, expected, model.Position, Report, implicated);
            }
        }
        catch (Exception e)
        {
            Report($"reading the database threw {e.GetType().Name}: {e.Message}");
        }

        if (more > 0)
            found.Add($"… and {more} more");
        return new ComparisonResult(found, implicated);
    }

    private static void CompareTree(string name, Tree tree, SortedDictionary<byte[], byte[]> expected, long position, Action<string> report,
        HashSet<long> implicated)
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
            {
                report($"{name}: extra key {DescribeKey(cursor.Key)} = {DescribeValue(cursor.Value)}");
                Implicate(implicated, WorkloadValues.StampOf(cursor.Value));
            }
            else if (order > 0)
            {
                report($"{name}: missing key {DescribeKey(model.Current.Key)}, expected {DescribeValue(model.Current.Value)}");
                Implicate(implicated, WorkloadValues.StampOf(model.Current.Value));
            }
            else if (!cursor.Value.SequenceEqual(model.Current.Value))
            {
                report($"{name}: key {DescribeKey(cursor.Key)} is {DescribeValue(cursor.Value)}, expected {DescribeValue(model.Current.Value)}, " +
                    $"first differing at byte {cursor.Value.CommonPrefixLength(model.Current.Value)}");
                // A value from past the model's position is a later transaction seen partly; otherwise the expected write is missing.
                long? actual = WorkloadValues.StampOf(cursor.Value);
                Implicate(implicated, actual > position ? actual : WorkloadValues.StampOf(model.Current.Value));
            }
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

    private static void Implicate(HashSet<long> implicated, long? transaction)
    {
        if (transaction is { } i)
            implicated.Add(i);
    }

    public static string DescribeKey(ReadOnlySpan<byte> key)
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
    public static string DescribeValue(ReadOnlySpan<byte> value) => WorkloadValues.StampOf(value) is { } stamp
        ? $"{value.Length} bytes from transaction {stamp}"
        : $"{value.Length} bytes {Convert.ToHexString(value)}";
}
