using Cairn.TestChild;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// What a database holds after <see cref="CrashWorkload"/> transactions 1..<see cref="Position"/>: one
/// sorted dictionary per tree, advanced forward only, so a long crash run pays for each transaction once.
/// </summary>
public sealed class CrashWorkloadModel(CrashWorkload workload)
{
    private readonly SortedDictionary<string, SortedDictionary<byte[], byte[]>> _trees = new(StringComparer.Ordinal);

    public CrashWorkload Workload => workload;

    /// <summary>The last workload transaction applied; 0 for the empty database.</summary>
    public long Position { get; private set; }

    /// <summary>Trees by name in ordinal order, which for the workload's ASCII names is the engine's order.</summary>
    public IReadOnlyDictionary<string, SortedDictionary<byte[], byte[]>> Trees => _trees;

    public void AdvanceTo(long transaction)
    {
        if (transaction < Position)
            throw new InvalidOperationException($"the model is at transaction {Position} and cannot go back to {transaction}");
        while (Position < transaction)
        {
            Position++;
            foreach (var op in workload.Transaction(Position))
                Apply(op);
        }
    }

    private void Apply(CrashOperation op)
    {
        switch (op.Kind)
        {
            case CrashOperationKind.CreateTree:
                if (!_trees.TryAdd(op.Tree, new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance)))
                    throw new InvalidOperationException($"transaction {Position} creates tree '{op.Tree}', which already exists");
                break;
            case CrashOperationKind.DeleteTree:
                if (!_trees.Remove(op.Tree))
                    throw new InvalidOperationException($"transaction {Position} deletes tree '{op.Tree}', which does not exist");
                break;
            case CrashOperationKind.Put:
                Tree(op.Tree)[op.Key] = op.Value;
                break;
            case CrashOperationKind.Delete:
                Tree(op.Tree).Remove(op.Key);
                break;
            default:
                throw new InvalidOperationException($"unknown operation {op.Kind}");
        }
    }

    private SortedDictionary<byte[], byte[]> Tree(string name)
        => _trees.TryGetValue(name, out var tree)
            ? tree
            : throw new InvalidOperationException($"transaction {Position} writes to tree '{name}', which does not exist");
}
