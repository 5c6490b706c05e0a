using Cairn.Transactions;

namespace Cairn;

/// <summary>
/// Opening trees for either face of a read transaction (<see cref="ReadTransaction"/>, <see cref="ReadSnapshot"/>):
/// the tree handed out carries the context and the use (generation) it was opened in.
/// </summary>
internal static class ReadAccess
{
    public static bool TryOpenTree(ReadContext context, long generation, string name, string dataFilePath, out Tree tree)
    {
        if (!context.TryOpenTree(name, dataFilePath, out var inner))
        {
            tree = default;
            return false;
        }
        tree = new Tree(context, generation, inner, name);
        return true;
    }

    public static bool TryOpenTree(ReadContext context, long generation, IReadHost environment, TreeHandle handle, out Tree tree)
    {
        ArgumentNullException.ThrowIfNull(handle);
        if (!ReferenceEquals(handle.Environment, environment))
            throw new ArgumentException($"The handle of tree '{handle.Name}' belongs to another environment ({handle.Environment.DirectoryPath}).", nameof(handle));
        if (!context.TryOpenTree(handle.Cache, environment.DataFilePath, out var inner))
        {
            tree = default;
            return false;
        }
        tree = new Tree(context, generation, inner, handle.Name);
        return true;
    }

    /// <summary>What a tree, cursor or snapshot kept past its transaction's end throws.</summary>
    public static ObjectDisposedException Ended()
        => new(nameof(ReadTransaction), "The transaction this was obtained from has ended.");
}
