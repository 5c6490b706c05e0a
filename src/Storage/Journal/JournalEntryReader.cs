using System.Runtime.CompilerServices;
using Cairn.Hashing;

namespace Cairn.Journal;

/// <summary>
/// Reads journal entries. <see cref="Validate"/> decides whether the bytes at a position are an
/// entry (magic, header checksum, version, flags, sizes within the available bytes, payload hash)
/// without trusting anything before it is checked; <see cref="Apply{TTarget}"/> then decompresses
/// a valid entry if needed, checks every page record and diff op, and only then applies them.
/// One reader keeps one decompression buffer for reuse. Not thread-safe.
/// </summary>
internal sealed unsafe class JournalEntryReader : IDisposable
{
    private JournalBuffer? _decompressed;

    /// <summary>
    /// Checks the entry at <paramref name="entry"/>, with <paramref name="available"/> readable bytes
    /// from there on; <paramref name="offset"/> is only reported back. Never reads outside them.
    /// </summary>
    public static JournalEntryValidation Validate(byte* entry, long available, long offset)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(available);
        if (available < JournalEntryHeader.Size)
        {
            return new ReadOnlySpan<byte>(entry, (int)available).IndexOfAnyExcept((byte)0) < 0
                ? JournalEntryValidation.Invalid(offset, JournalEntryProblem.Empty)
                : JournalEntryValidation.Invalid(offset, JournalEntryProblem.TruncatedHeader, JournalEntryHeader.Size, (ulong)available);
        }
        var header = Unsafe.ReadUnaligned<JournalEntryHeader>(entry);
        if (header.Magic != JournalEntryHeader.MagicValue)
        {
            return new ReadOnlySpan<byte>(entry, JournalEntryHeader.Size).IndexOfAnyExcept((byte)0) < 0
                ? JournalEntryValidation.Invalid(offset, JournalEntryProblem.Empty)
                : JournalEntryValidation.Invalid(offset, JournalEntryProblem.BadMagic, JournalEntryHeader.MagicValue, header.Magic);
        }
        ulong seed = unchecked((ulong)header.TransactionId);
        ulong computed = Checksums.Compute(entry, JournalEntryHeader.ChecksummedLength, seed);
        if (computed != header.HeaderChecksum && !IsFormatVersion1(entry, header))
            return JournalEntryValidation.Invalid(offset, JournalEntryProblem.HeaderChecksumMismatch, header.HeaderChecksum, computed);
        if (header.FormatVersion != JournalEntryHeader.CurrentFormatVersion)
            return JournalEntryValidation.Invalid(offset, JournalEntryProblem.UnsupportedVersion, header,
                JournalEntryHeader.CurrentFormatVersion, unchecked((ulong)header.FormatVersion));
        if ((header.Flags & ~JournalEntryFlags.Known) != 0)
            return JournalEntryValidation.Invalid(offset, JournalEntryProblem.UnknownFlags, header, 0, (ulong)(header.Flags & ~JournalEntryFlags.Known));
        bool compressed = (header.Flags & JournalEntryFlags.Compressed) != 0;
        if (header.PageCount < 0 || header.PayloadSize < 0 || header.UncompressedPayloadSize < 0
            || (!compressed && header.UncompressedPayloadSize != header.PayloadSize)
            || (compressed && (header.UncompressedPayloadSize > JournalCompression.MaxInputLength || header.PayloadSize > int.MaxValue))
            || header.UncompressedPayloadSize < (long)header.PageCount * PageRecordHeader.Size)
            return JournalEntryValidation.Invalid(offset, JournalEntryProblem.BadSizes, header);
        // A huge PayloadSize must not overflow the aligned size; the whole aligned entry must be there.
        if (header.PayloadSize > available || JournalEntryHeader.EntrySize(header.PayloadSize) > available)
        {
            ulong needed = header.PayloadSize > long.MaxValue - 2 * JournalEntryHeader.Alignment
                ? (ulong)header.PayloadSize + JournalEntryHeader.Size
                : (ulong)JournalEntryHeader.EntrySize(header.PayloadSize);
            return JournalEntryValidation.Invalid(offset, JournalEntryProblem.Truncated, header, needed, (ulong)available);
        }
        computed = Checksums.Compute(entry + JournalEntryHeader.Size, header.PayloadSize, seed);
        if (computed != header.PayloadHash)
            return JournalEntryValidation.Invalid(offset, JournalEntryProblem.PayloadHashMismatch, header, header.PayloadHash, computed);
        return JournalEntryValidation.Valid(offset, header, JournalEntryHeader.EntrySize(header.PayloadSize));
    }

    /// <summary>
    /// A header of format version 1, sealed with that version's checksum: trusted, and refused for its version
    /// (not taken for a torn or damaged header).
    /// </summary>
    private static bool IsFormatVersion1(byte* entry, in JournalEntryHeader header)
        => header.FormatVersion == 1 && header.HeaderChecksum == Checksums.ComputeFormatVersion1(
            new ReadOnlySpan<byte>(entry, JournalEntryHeader.ChecksummedLength), unchecked((ulong)header.TransactionId));

    /// <summary>
    /// The page records of a valid entry: its payload, or the payload decompressed into this
    /// reader's buffer (valid until the next call). Throws <see cref="JournalCorruptionException"/>
    /// if it does not decompress to exactly the promised size.
    /// </summary>
    public byte* GetPayload(byte* entry, in JournalEntryValidation validation, out long length)
    {
        if (!validation.IsValid)
            throw new ArgumentException($"Not a valid entry: {validation}", nameof(validation));
        var header = validation.Header;
        byte* payload = entry + JournalEntryHeader.Size;
        length = header.UncompressedPayloadSize;
        if ((header.Flags & JournalEntryFlags.Compressed) == 0)
            return payload;

        int expected = (int)header.UncompressedPayloadSize;
        _decompressed ??= new JournalBuffer((long)expected + 1);
        // One spare byte: a stream that decompresses to more than promised fails instead of fitting exactly.
        _decompressed.EnsureCapacity((long)expected + 1);
        var source = new ReadOnlySpan<byte>(payload, (int)header.PayloadSize);
        var destination = new Span<byte>(_decompressed.Pointer, expected + 1);
        if (!JournalCompression.TryDecompress(source, destination, out int written) || written != expected)
            throw new JournalCorruptionException(validation.Offset, header.TransactionId,
                $"the payload does not decompress to the {expected} bytes its header promises");
        return _decompressed.Pointer;
    }

    /// <summary>
    /// Applies a valid entry's page records to <paramref name="target"/> in payload order and returns
    /// how many it applied. Every record and diff op is checked before the first byte is written, so
    /// a <see cref="JournalCorruptionException"/> leaves the target untouched.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public int Apply<TTarget>(byte* entry, in JournalEntryValidation validation, ref TTarget target)
        where TTarget : IJournalPageTarget, allows ref struct
    {
        Check(entry, validation);
        return ApplyChecked(entry, validation, ref target);
    }

    /// <summary>
    /// Checks everything of a valid entry that <see cref="Validate"/> does not: that its payload decompresses to the
    /// promised size, and every page record and diff op. Throws <see cref="JournalCorruptionException"/>; an entry that
    /// passes can be applied (<see cref="ApplyChecked{TTarget}"/>, by any reader) without a corruption found on the way.
    /// </summary>
    // Replay calls this once per entry and loops over every record inside: optimized from its first call, as
    // recovery runs once per process, before tiered compilation would have promoted it.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void Check(byte* entry, in JournalEntryValidation validation)
    {
        byte* payload = GetPayload(entry, validation, out long length);
        var check = new PageRecordEnumerator(payload, length, validation.Header, validation.Offset);
        while (check.MoveNext())
        {
            var record = check.Current;
            if (record.Encoding == PageRecordEncoding.Full)
                continue;
            string? problem = PageDiffDecoder.Validate(record.Data, record.EncodedLength, record.Length);
            if (problem is not null)
                throw check.Corrupt($"record at payload byte {record.PayloadOffset} (page {record.PageNumber}, {record.Encoding}): {problem}");
        }
    }

    /// <summary>
    /// Applies the page records of an entry <see cref="Check"/> passed (here or in another reader) to
    /// <paramref name="target"/> in payload order and returns how many it applied. Records are still walked within
    /// their bounds: a problem found here would be a bug, reported as <see cref="JournalCorruptionException"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public int ApplyChecked<TTarget>(byte* entry, in JournalEntryValidation validation, ref TTarget target)
        where TTarget : IJournalPageTarget, allows ref struct
    {
        byte* payload = GetPayload(entry, validation, out long length);
        int applied = 0;
        var records = new PageRecordEnumerator(payload, length, validation.Header, validation.Offset);
        while (records.MoveNext())
        {
            var record = records.Current;
            byte* page = target.GetPageForWrite(record.PageNumber, record.PageCount, record.Encoding == PageRecordEncoding.Diff);
            switch (record.Encoding)
            {
                case PageRecordEncoding.Full:
                    Buffer.MemoryCopy(record.Data, page, record.Length, record.Length);
                    break;
                case PageRecordEncoding.NewPage:
                    new Span<byte>(page, record.Length).Clear();
                    ApplyChecked(record, page, ref records);
                    break;
                default:
                    ApplyChecked(record, page, ref records);
                    break;
            }
            applied++;
        }
        return applied;
    }

    private static void ApplyChecked(in PageRecord record, byte* page, ref PageRecordEnumerator records)
    {
        // Checked by Check first; a problem here would be a bug, still reported rather than ignored.
        string? problem = PageDiffDecoder.Apply(record.Data, record.EncodedLength, page, record.Length);
        if (problem is not null)
            throw records.Corrupt($"record at payload byte {record.PayloadOffset} (page {record.PageNumber}): {problem}");
    }

    public void Dispose()
    {
        _decompressed?.Dispose();
        _decompressed = null;
    }
}
