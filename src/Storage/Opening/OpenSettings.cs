using Cairn.Journal.Files;
using Cairn.Paging;

namespace Cairn.Opening;

/// <summary>What opening needs of the environment's options (see StorageOptions for each).</summary>
internal sealed record OpenSettings(
    TimeSpan LockWaitTimeout,
    long MaxScratchBytes,
    int IoStatsCapacity,
    JournalSizing JournalSizing,
    TimeSpan SlowJournalWriteThreshold,
    bool PrepareSpareJournals,
    long JournalRetentionBytes = 0,
    long RetainedScratchBytes = ScratchAllocator.DefaultRetainedSpareBytes);
