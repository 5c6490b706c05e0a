using Cairn.Stress.Workload;

namespace Cairn.Stress.Checking;

/// <summary>
/// What a reader checks in one snapshot while writers commit around it, in a few milliseconds and without the
/// parent's expected state: the balances add up, every counted tree holds as many keys as meta says, the newest
/// transactions of the snapshot are wholly there, and nothing of the transactions after it is.
/// </summary>
internal static class SnapshotInvariants
{
    /// <summary>How many of the newest transactions (and of the ones after) a check recomputes.</summary>
    public const int Window = 4;

    private const int MaxReported = 5;

    /// <summary>Null if the snapshot holds, else what is wrong (in one line).</summary>
    public static string? Check(ReadTransaction tx, StressWorkload workload)
    {
        long last = StressWorkload.ReadLast(tx);
        if (last == 0)
            return null;
        var problems = new List<string>();
        CheckBalances(tx, last, problems);
        CheckCounts(tx, workload, last, problems);
        CheckNewest(tx, workload, last, problems);
        CheckNext(tx, workload, last, problems);
        return problems.Count == 0
            ? null
            : $"snapshot at transaction {last}: " + string.Join("; ", problems.Take(MaxReported)) +
              (problems.Count > MaxReported ? $"; and {problems.Count - MaxReported} more" : "");
    }

    private static void CheckBalances(ReadTransaction tx, long last, List<string> problems)
    {
        if (!tx.TryOpenTree(StressWorkload.AccountsTree, out var accounts))
        {
            problems.Add("the accounts tree is missing");
            return;
        }
        long sum = 0;
        for (int a = 0; a < StressWorkload.Accounts; a++)
        {
            if (!accounts.TryGet(StressWorkload.AccountKey(a), out var value))
            {
                problems.Add($"account {a} is missing");
                return;
            }
            if (WorkloadValues.StampOf(value) > last)
                problems.Add($"account {a} holds a balance from transaction {WorkloadValues.StampOf(value)}");
            sum += WorkloadValues.NumberOf(value, $"account {a}");
        }
        const long expected = StressWorkload.Accounts * StressWorkload.InitialBalance;
        if (sum != expected)
            problems.Add($"the balances add up to {sum}, not {expected}");
    }

    private static void CheckCounts(ReadTransaction tx, StressWorkload workload, long last, List<string> problems)
    {
        var meta = tx.OpenTree(StressWorkload.MetaTree);
        foreach (var name in workload.CountedTrees)
        {
            if (!tx.TryOpenTree(name, out var tree))
            {
                problems.Add($"tree '{name}' is missing");
                continue;
            }
            long counted = 0;
            if (meta.TryGet(StressWorkload.CounterKey(name), out var value))
            {
                counted = WorkloadValues.NumberOf(value, $"meta/count/{name}");
                if (WorkloadValues.StampOf(value) > last)
                    problems.Add($"meta/count/{name} is from transaction {WorkloadValues.StampOf(value)}");
            }
            if (tree.Count != counted)
                problems.Add($"tree '{name}' holds {tree.Count} keys, meta says {counted}");
        }
    }

    /// <summary>For every key the newest transactions wrote, the last write among them is what the snapshot holds.</summary>
    private static void CheckNewest(ReadTransaction tx, StressWorkload workload, long last, List<string> problems)
    {
        var final = new Dictionary<string, (long Transaction, StressOperation Op)>(StringComparer.Ordinal);
        for (long i = Math.Max(1, last - Window + 1); i <= last; i++)
        {
            foreach (var op in workload.Transaction(i))
            {
                if (op.IsCheckableWrite)
                    final[Name(op)] = (i, op);
            }
        }
        foreach (var (i, op) in final.Values)
        {
            bool present = tx.OpenTree(op.Tree).TryGet(op.Key, out var actual);
            if (op.Kind == StressOperationKind.Delete && present)
                problems.Add($"transaction {i} deleted {op.Tree}/{DatabaseComparison.DescribeKey(op.Key)}, but it holds {DatabaseComparison.DescribeValue(actual)}");
            else if (op.Kind == StressOperationKind.Put && !present)
                problems.Add($"transaction {i} put {op.Tree}/{DatabaseComparison.DescribeKey(op.Key)}, which is missing");
            else if (op.Kind == StressOperationKind.Put && !actual.SequenceEqual(op.Value))
                problems.Add($"transaction {i} put {op.Tree}/{DatabaseComparison.DescribeKey(op.Key)}, which holds {DatabaseComparison.DescribeValue(actual)}");
        }
    }

    /// <summary>No key the next transactions write holds a value from past the snapshot.</summary>
    private static void CheckNext(ReadTransaction tx, StressWorkload workload, long last, List<string> problems)
    {
        for (long i = last + 1; i <= last + Window; i++)
        {
            foreach (var op in workload.Transaction(i))
            {
                if (op.IsCheckableWrite && tx.TryOpenTree(op.Tree, out var tree) && tree.TryGet(op.Key, out var actual)
                    && WorkloadValues.StampOf(actual) > last)
                    problems.Add($"{op.Tree}/{DatabaseComparison.DescribeKey(op.Key)} holds {DatabaseComparison.DescribeValue(actual)}");
            }
        }
    }

    private static string Name(StressOperation op) => op.Tree + "/" + Convert.ToHexString(op.Key);
}
