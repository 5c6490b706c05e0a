using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cairn.Hashing;
using Cairn.Journal;

namespace Cairn.Shipping;

/// <summary>
/// The transport form of shipped journal entries (an incremental backup file, or what a shipping loop sends): each
/// entry behind a 64-byte checksummed frame (docs/on-disk-format.md, "Shipped-entries stream"), one after another,
/// ending at a frame boundary. Reading checks every frame and every entry's own hashes, and throws
/// <see cref="ShippedEntryDamagedException"/> naming the offset for anything damaged or cut short.
/// </summary>
public static unsafe class ShippedEntryStream
{
    /// <summary>Writes <paramref name="entries"/> framed to <paramref name="destination"/>; returns how many.</summary>
    public static long Write(Stream destination, IEnumerable<ShippedJournalEntry> entries)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(entries);
        long count = 0;
        Span<byte> frame = stackalloc byte[ShippedEntryFrame.Size];
        foreach (var entry in entries)
        {
            WriteFrame(frame, entry);
            destination.Write(frame);
            destination.Write(entry.Data.Span);
            count++;
        }
        destination.Flush();
        return count;
    }

    /// <summary>The 64-byte frame that goes before <paramref name="entry"/>.</summary>
    private static void WriteFrame(Span<byte> destination, ShippedJournalEntry entry)
    {
        var frame = new ShippedEntryFrame
        {
            Magic = ShippedEntryFrame.MagicValue,
            FormatVersion = ShippedEntryFrame.CurrentFormatVersion,
            TransactionId = entry.TransactionId,
            EntryLength = entry.Data.Length,
            EnvironmentId = entry.EnvironmentId,
        };
        MemoryMarshal.Write(destination, in frame);
        ulong checksum = Checksums.Compute(destination[..ShippedEntryFrame.ChecksummedLength], unchecked((ulong)frame.TransactionId));
        MemoryMarshal.Write(destination[ShippedEntryFrame.ChecksummedLength..], in checksum);
    }

    /// <summary>
    /// Reads the entries of <paramref name="source"/> one at a time, each checked (its frame, and its own header and
    /// payload hashes) before it is handed out. <paramref name="name"/> names the stream in exceptions.
    /// </summary>
    /// <exception cref="ShippedEntryDamagedException">A frame or an entry is damaged or cut short (the message gives the offset).</exception>
    public static IEnumerable<ShippedJournalEntry> Read(Stream source, string name = "the shipped-entries stream")
    {
        ArgumentNullException.ThrowIfNull(source);
        return ReadWithOffsets(source, name).Select(e => e.Entry);
    }

    /// <summary>As <see cref="Read"/>, with each entry's frame offset in the stream (for messages).</summary>
    internal static IEnumerable<(ShippedJournalEntry Entry, long Offset)> ReadWithOffsets(Stream source, string name)
    {
        var frameBytes = new byte[ShippedEntryFrame.Size];
        long offset = 0;
        while (true)
        {
            int got = source.ReadAtLeast(frameBytes, frameBytes.Length, throwOnEndOfStream: false);
            if (got == 0)
                yield break;
            if (got < frameBytes.Length)
                throw Damaged(name, offset, -1, $"the stream ends {got} bytes into a {ShippedEntryFrame.Size}-byte frame (cut short)");
            var frame = MemoryMarshal.Read<ShippedEntryFrame>(frameBytes);
            string? problem = CheckFrame(frameBytes, frame);
            if (problem is not null)
                throw Damaged(name, offset, -1, problem);
            var data = new byte[frame.EntryLength];
            got = source.ReadAtLeast(data, data.Length, throwOnEndOfStream: false);
            if (got < data.Length)
                throw Damaged(name, offset, frame.TransactionId, $"the stream ends {got} bytes into the entry of {data.Length} bytes (cut short)");
            var validation = Validate(data);
            if (!validation.IsValid)
                throw Damaged(name, offset, frame.TransactionId, $"the entry does not validate: {validation.Reason}");
            var header = validation.Header;
            if (header.TransactionId != frame.TransactionId || header.EnvironmentId != frame.EnvironmentId || validation.EntrySize != data.Length)
                throw Damaged(name, offset, frame.TransactionId,
                    $"the frame says transaction {frame.TransactionId} of environment {frame.EnvironmentId} in {data.Length} bytes, the entry is transaction {header.TransactionId} of {header.EnvironmentId} in {validation.EntrySize}");
            yield return (new ShippedJournalEntry(header.TransactionId, header.EnvironmentId, data), offset);
            offset += ShippedEntryFrame.Size + data.Length;
        }
    }

    private static string? CheckFrame(ReadOnlySpan<byte> bytes, in ShippedEntryFrame frame)
    {
        if (frame.Magic != ShippedEntryFrame.MagicValue)
            return $"magic 0x{frame.Magic:x16} is not CAIRNSF1 (not a shipped-entries stream, or damaged)";
        ulong computed = Checksums.Compute(bytes[..ShippedEntryFrame.ChecksummedLength], unchecked((ulong)frame.TransactionId));
        if (computed != frame.Checksum)
            return $"frame checksum mismatch (stored 0x{frame.Checksum:x16}, computed 0x{computed:x16})";
        if (frame.FormatVersion != ShippedEntryFrame.CurrentFormatVersion)
            return $"frame format version {frame.FormatVersion} is not supported (this build reads {ShippedEntryFrame.CurrentFormatVersion})";
        if (frame.EntryLength < JournalEntryHeader.Alignment || frame.EntryLength > ShippedEntryFrame.MaxEntryLength
            || frame.EntryLength % JournalEntryHeader.Alignment != 0)
            return $"entry length {frame.EntryLength} is not a multiple of {JournalEntryHeader.Alignment} up to {ShippedEntryFrame.MaxEntryLength}";
        return null;
    }

    private static JournalEntryValidation Validate(byte[] data)
    {
        fixed (byte* entry = data)
            return JournalEntryReader.Validate(entry, data.Length, 0);
    }

    private static ShippedEntryDamagedException Damaged(string name, long offset, long transactionId, string problem)
        => new($"the frame at offset {offset} of {name}", -1, transactionId, problem);
}
