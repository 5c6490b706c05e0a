namespace Cairn.Trees;

internal enum TreePageKind
{
    Branch,
    Leaf,
    /// <summary>A run of pages holding one value; reported once, by its first page and length.</summary>
    Overflow,
}

/// <summary>
/// Receives every page a tree uses while <see cref="BTree.Verify"/> walks it, so that the environment's
/// verifier can check that each page of the file belongs to exactly one place.
/// </summary>
internal interface ITreeVerificationSink
{
    void OnPages(long firstPage, int count, TreePageKind kind);
}
