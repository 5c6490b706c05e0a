namespace Cairn.Journal;

/// <summary>Bits of <see cref="JournalEntryHeader.Flags"/>. Any other bit set makes the entry invalid.</summary>
[Flags]
internal enum JournalEntryFlags : uint
{
    None = 0,

    /// <summary>The payload is one LZ4 block that decodes to the page records (UncompressedPayloadSize bytes).</summary>
    Compressed = 1,

    Known = Compressed,
}
