using System.Text;

namespace Cairn.Cluster.NodeHost;

/// <summary>
/// A node's whole environment as text, every tree (the cluster's own included) in name order, one
/// <c>tree key=value</c> line per entry in hex, read in one transaction: two nodes that applied the same log
/// have the same dump.
/// </summary>
public static class NodeDump
{
    public static string Of(ClusterNode node)
    {
        ArgumentNullException.ThrowIfNull(node);
        using var read = node.BeginLocalRead();
        return Of(read);
    }

    /// <summary>The dump of what <paramref name="read"/> sees.</summary>
    public static string Of(ReadTransaction read)
    {
        ArgumentNullException.ThrowIfNull(read);
        var text = new StringBuilder();
        foreach (var name in read.GetTreeNames().Order(StringComparer.Ordinal))
        {
            using var cursor = read.OpenTree(name).CreateCursor();
            for (var more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                text.Append(name).Append(' ').Append(Convert.ToHexString(cursor.Key)).Append('=').AppendLine(Convert.ToHexString(cursor.Value));
        }

        return text.ToString();
    }
}
