namespace Cairn.Journal;

/// <summary>Bits of <see cref="JournalEntryHeader.Flags"/>. Any other bit set makes the entry invalid.</summary>
[Flags]
internal enum JournalEntryFlags : uint
{
    None = 0,

    /// <summary>The payload is one raw Brotli stream (RFC 7932) that decompresses to the page records.</summary>
    Compressed = 1,

    Known = Compressed,
}
