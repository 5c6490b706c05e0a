namespace Cairn;

/// <summary>What <see cref="StorageEnvironment.Verify"/> checked, page by page.</summary>
public sealed record VerificationReport(
    long TransactionId,
    long TotalPages,
    long PagesInUse,
    long FreePages,
    long PagesWaitingForReaders,
    int Trees,
    long Entries);
