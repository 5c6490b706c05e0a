using System.Globalization;
using System.Net;

namespace Cairn.Cluster.NodeHost;

/// <summary>What a node host reports on its control port: who it follows, its term, commit and applied indexes.</summary>
public sealed record NodeStatus(IPEndPoint? Leader, bool IsLeader, long Term, long CommitIndex, long AppliedIndex)
{
    public static NodeStatus Of(ClusterNode node)
    {
        ArgumentNullException.ThrowIfNull(node);
        return new NodeStatus(node.Leader as IPEndPoint, node.IsLeader, node.Term, node.CommitIndex, node.AppliedIndex);
    }

    /// <summary>One line: <c>leader term commit applied isLeader</c>, the leader as <c>-</c> when there is none.</summary>
    public string Format() => string.Create(CultureInfo.InvariantCulture,
        $"{Leader?.ToString() ?? "-"} {Term} {CommitIndex} {AppliedIndex} {(IsLeader ? 1 : 0)}");

    /// <summary>Reads a line <see cref="Format"/> wrote; anything else is a <see cref="FormatException"/> quoting it.</summary>
    public static NodeStatus Parse(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        var parts = line.Split(' ');
        if (parts.Length != 5
            || !long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var term)
            || !long.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var commit)
            || !long.TryParse(parts[3], NumberStyles.None, CultureInfo.InvariantCulture, out var applied)
            || parts[4] is not ("0" or "1"))
            throw new FormatException($"Not a node status line: '{line}'.");
        IPEndPoint? leader = null;
        if (parts[0] != "-" && !IPEndPoint.TryParse(parts[0], out leader))
            throw new FormatException($"Not a leader address in the status line: '{line}'.");
        return new NodeStatus(leader, parts[4] == "1", term, commit, applied);
    }
}
