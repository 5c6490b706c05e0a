using static Cairn.Stress.Workload.WorkloadValues;

namespace Cairn.Stress.Workload;

/// <summary>
/// What a workload transaction does to a database, decided in one place for the engine and the expected state:
/// the operations strictly (creating a tree that exists or touching one that does not means the workload and the
/// database disagree, which must surface rather than pass as a no-op), the transfer's two balances, and the key
/// counts of the counted trees it changed.
/// </summary>
internal static class TransactionApplier
{
    public static void Apply<TStore>(TStore store, StressWorkload workload, long i) where TStore : IStressStore
    {
        var ops = workload.Transaction(i);
        Dictionary<string, long>? counts = null;
        foreach (var op in ops)
        {
            switch (op.Kind)
            {
                case StressOperationKind.CreateTree:
                    if (store.TreeExists(op.Tree))
                        throw new InvalidOperationException($"transaction {i} creates tree '{op.Tree}', which already exists");
                    store.CreateTree(op.Tree);
                    break;
                case StressOperationKind.DeleteTree:
                    if (!store.DeleteTree(op.Tree))
                        throw new InvalidOperationException($"transaction {i} deletes tree '{op.Tree}', which does not exist");
                    break;
                case StressOperationKind.Put:
                    if (workload.IsCounted(op.Tree) && !store.Contains(op.Tree, op.Key))
                        Count(ref counts, op.Tree, +1);
                    store.Put(op.Tree, op.Key, op.Value);
                    break;
                case StressOperationKind.Delete:
                    if (store.Delete(op.Tree, op.Key) && workload.IsCounted(op.Tree))
                        Count(ref counts, op.Tree, -1);
                    break;
                case StressOperationKind.Transfer:
                    store.Put(op.Tree, op.Key, StampedNumber(i, Balance(store, op.Key) - op.Amount));
                    store.Put(op.Tree, op.Value, StampedNumber(i, Balance(store, op.Value) + op.Amount));
                    break;
                default:
                    throw new InvalidOperationException($"unknown operation {op.Kind}");
            }
        }
        if (counts is null)
            return;
        foreach (var (tree, delta) in counts)
        {
            if (delta == 0)
                continue;
            var key = StressWorkload.CounterKey(tree);
            long count = store.Get(StressWorkload.MetaTree, key) is { } current ? NumberOf(current, $"meta/count/{tree}") : 0;
            store.Put(StressWorkload.MetaTree, key, StampedNumber(i, count + delta));
        }
    }

    private static void Count(ref Dictionary<string, long>? counts, string tree, long delta)
    {
        counts ??= new Dictionary<string, long>(StringComparer.Ordinal);
        counts[tree] = counts.GetValueOrDefault(tree) + delta;
    }

    private static long Balance<TStore>(TStore store, byte[] account) where TStore : IStressStore
        => store.Get(StressWorkload.AccountsTree, account) is { } value
            ? NumberOf(value, "a balance")
            : throw new InvalidOperationException($"account {System.Text.Encoding.ASCII.GetString(account)} does not exist");
}
