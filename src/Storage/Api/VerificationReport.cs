namespace Cairn;

/// <summary>What <see cref="StorageEnvironment.Verify"/> checked, page by page.</summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public sealed record VerificationReport
{
    /// <summary>The snapshot verified: the last transaction committed when the check began.</summary>
    public required long TransactionId { get; init; }

    /// <summary>Pages below the high-water mark (every page ever allocated, the header copies included).</summary>
    public required long TotalPages { get; init; }

    /// <summary>Pages reachable from the header: headers, free-space map, trees, overflow values.</summary>
    public required long PagesInUse { get; init; }

    /// <summary>Pages the free-space map marks free and the writer can hand out.</summary>
    public required long FreePages { get; init; }

    /// <summary>Freed pages not yet allocatable (read transactions may still see them).</summary>
    public required long PagesWaitingForReaders { get; init; }

    /// <summary>Named trees checked.</summary>
    public required int Trees { get; init; }

    /// <summary>Entries in them, summed.</summary>
    public required long Entries { get; init; }
}
