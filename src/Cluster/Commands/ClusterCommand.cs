namespace Cairn.Cluster;

/// <summary>
/// A replicated write: operations on one tree, applied in one Cairn transaction on every node, in log order, at
/// most once per <see cref="OperationId"/>. It reads no clock and no randomness, so every node computes the same state.
/// </summary>
public sealed class ClusterCommand
{
    /// <summary>The longest tree name a command carries, in UTF-8 bytes.</summary>
    public const int MaxTreeNameBytes = 1024;

    /// <param name="id">The client and sequence that make a retry recognisable.</param>
    /// <param name="tree">The tree the operations change (created on first use).</param>
    /// <param name="operations">At least one put or delete.</param>
    public ClusterCommand(OperationId id, string tree, IReadOnlyList<ClusterOperation> operations)
    {
        id.Validate();
        ArgumentException.ThrowIfNullOrEmpty(tree);
        if (System.Text.Encoding.UTF8.GetByteCount(tree) > MaxTreeNameBytes)
            throw new ArgumentOutOfRangeException(nameof(tree), tree, $"A tree name is at most {MaxTreeNameBytes} UTF-8 bytes.");
        if (tree.StartsWith(ClusterTrees.ReservedPrefix, StringComparison.Ordinal))
            throw new ArgumentException($"Tree names starting with '{ClusterTrees.ReservedPrefix}' are the cluster's own.", nameof(tree));
        ArgumentNullException.ThrowIfNull(operations);
        if (operations.Count == 0)
            throw new ArgumentException("A command has at least one operation.", nameof(operations));
        foreach (var operation in operations)
            ArgumentNullException.ThrowIfNull(operation, nameof(operations));
        Id = id;
        Tree = tree;
        Operations = operations;
    }

    /// <summary>The client and sequence of this write.</summary>
    public OperationId Id { get; }

    /// <summary>The tree the operations change.</summary>
    public string Tree { get; }

    /// <summary>The puts and deletes, applied in this order.</summary>
    public IReadOnlyList<ClusterOperation> Operations { get; }
}
