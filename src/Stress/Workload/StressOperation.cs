namespace Cairn.Stress.Workload;

internal enum StressOperationKind
{
    CreateTree,
    DeleteTree,
    Put,
    Delete,
    /// <summary>Moves <see cref="StressOperation.Amount"/> from account <see cref="StressOperation.Key"/> to account <see cref="StressOperation.Value"/>.</summary>
    Transfer,
}

/// <summary>
/// One step of a workload transaction. The workload hands out plain operations so that the engine (in the
/// child), the expected state (in the parent) and a reader's check all start from exactly the same steps.
/// </summary>
internal sealed record StressOperation(StressOperationKind Kind, string Tree, byte[] Key, byte[] Value, long Amount = 0)
{
    public static StressOperation CreateTree(string tree) => new(StressOperationKind.CreateTree, tree, [], []);

    public static StressOperation DeleteTree(string tree) => new(StressOperationKind.DeleteTree, tree, [], []);

    public static StressOperation Put(string tree, byte[] key, byte[] value) => new(StressOperationKind.Put, tree, key, value);

    public static StressOperation Delete(string tree, byte[] key) => new(StressOperationKind.Delete, tree, key, []);

    public static StressOperation Transfer(byte[] from, byte[] to, long amount) => new(StressOperationKind.Transfer, StressWorkload.AccountsTree, from, to, amount);

    /// <summary>
    /// A put or delete whose outcome a reader can check key by key in a snapshot. Extra trees come and go whole,
    /// and balances move through transfers too (their sum is checked instead), so theirs are left out.
    /// </summary>
    public bool IsCheckableWrite => Kind is StressOperationKind.Put or StressOperationKind.Delete
        && Tree != StressWorkload.AccountsTree && !StressWorkload.IsExtraTree(Tree);
}
