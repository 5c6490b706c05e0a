namespace Cairn;

/// <summary>
/// A tree's pages contradict each other or the tree's metadata: found by tree verification, or by
/// an operation that met a page of the wrong kind or a path deeper than any tree can be.
/// </summary>
public sealed class TreeCorruptionException(long pageNumber, string problem)
    : IOException($"Tree page {pageNumber} is corrupt: {problem}")
{
    /// <summary>The page where the problem was seen (for a count mismatch, the tree's root page).</summary>
    public long PageNumber { get; } = pageNumber;

    /// <summary>What is wrong, in words.</summary>
    public string Problem { get; } = problem;
}
