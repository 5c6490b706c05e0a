namespace Cairn.Journal;

/// <summary>What the last entry a <see cref="JournalEntryWriter"/> finished holds, for IO statistics and tests.</summary>
internal readonly record struct JournalEntryStats(
    int Records,
    long PageBytes,
    int FullRecords,
    int DiffRecords,
    int NewPageRecords,
    long UncompressedPayloadSize,
    long PayloadSize,
    long EntrySize,
    bool Compressed);
