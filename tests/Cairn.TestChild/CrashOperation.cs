namespace Cairn.TestChild;

public enum CrashOperationKind
{
    CreateTree,
    DeleteTree,
    Put,
    Delete,
}

/// <summary>
/// One step of a <see cref="CrashWorkload"/> transaction. The workload hands out plain operations so
/// the engine (here) and the test's in-memory model apply exactly the same steps.
/// </summary>
public sealed record CrashOperation(CrashOperationKind Kind, string Tree, byte[] Key, byte[] Value)
{
    public static CrashOperation CreateTree(string tree) => new(CrashOperationKind.CreateTree, tree, [], []);

    public static CrashOperation DeleteTree(string tree) => new(CrashOperationKind.DeleteTree, tree, [], []);

    public static CrashOperation Put(string tree, byte[] key, byte[] value) => new(CrashOperationKind.Put, tree, key, value);

    public static CrashOperation Delete(string tree, byte[] key) => new(CrashOperationKind.Delete, tree, key, []);

    /// <summary>
    /// Applies the step strictly: creating a tree that exists or touching one that does not means the
    /// workload and the database disagree, which must surface here rather than as a silent no-op.
    /// </summary>
    public void ApplyTo(WriteTransaction tx)
    {
        switch (Kind)
        {
            case CrashOperationKind.CreateTree:
                if (tx.TryOpenTree(Tree, out _))
                    throw new InvalidOperationException($"workload creates tree '{Tree}', which already exists");
                tx.CreateTree(Tree);
                break;
            case CrashOperationKind.DeleteTree:
                if (!tx.DeleteTree(Tree))
                    throw new InvalidOperationException($"workload deletes tree '{Tree}', which does not exist");
                break;
            case CrashOperationKind.Put:
                tx.OpenTree(Tree).Put(Key, Value);
                break;
            case CrashOperationKind.Delete:
                tx.OpenTree(Tree).Delete(Key);
                break;
            default:
                throw new InvalidOperationException($"unknown operation {Kind}");
        }
    }
}
