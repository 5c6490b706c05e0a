namespace Cairn.Journal;

/// <summary>How <see cref="JournalEntryWriter"/> compresses payloads (measurements behind the defaults: docs/decisions.md, "journal format").</summary>
internal readonly record struct JournalWriterOptions
{
    public const int CompressionDisabled = int.MaxValue;

    public JournalWriterOptions()
    {
    }

    /// <summary>
    /// Payloads (page records) of at least this many bytes are compressed when that makes the
    /// 4 KiB-aligned entry smaller; <see cref="CompressionDisabled"/> turns compression off.
    /// </summary>
    public int CompressionThreshold { get; init; } = DefaultCompressionThreshold;

    public const int DefaultCompressionThreshold = CompressionDisabled;

    public static JournalWriterOptions Default => new();
}
