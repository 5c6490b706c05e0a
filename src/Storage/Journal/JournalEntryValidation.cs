namespace Cairn.Journal;

/// <summary>
/// What <see cref="JournalEntryReader.Validate"/> found at a journal position: a valid entry (its
/// header and size), or the problem and where. <see cref="Header"/> is filled whenever the header
/// checksum matched, even if something after it is wrong.
/// </summary>
internal readonly struct JournalEntryValidation
{
    private JournalEntryValidation(long offset, JournalEntryProblem problem, in JournalEntryHeader header, bool headerTrusted,
        long entrySize, ulong expected, ulong actual)
    {
        Offset = offset;
        Problem = problem;
        Header = header;
        HeaderIsTrusted = headerTrusted;
        EntrySize = entrySize;
        Expected = expected;
        Actual = actual;
    }

    public static JournalEntryValidation Valid(long offset, in JournalEntryHeader header, long entrySize)
        => new(offset, JournalEntryProblem.None, header, headerTrusted: true, entrySize, 0, 0);

    public static JournalEntryValidation Invalid(long offset, JournalEntryProblem problem, ulong expected = 0, ulong actual = 0)
        => new(offset, problem, default, headerTrusted: false, 0, expected, actual);

    public static JournalEntryValidation Invalid(long offset, JournalEntryProblem problem, in JournalEntryHeader header,
        ulong expected = 0, ulong actual = 0)
        => new(offset, problem, header, headerTrusted: true, 0, expected, actual);

    public bool IsValid => Problem == JournalEntryProblem.None;

    /// <summary>The position the caller validated (its offset in the journal).</summary>
    public long Offset { get; }

    public JournalEntryProblem Problem { get; }

    public JournalEntryHeader Header { get; }

    /// <summary>The header checksum matched, so <see cref="Header"/> is what a writer wrote.</summary>
    public bool HeaderIsTrusted { get; }

    /// <summary>Valid entries: bytes from this entry's start to the next entry's (a multiple of 4096).</summary>
    public long EntrySize { get; }

    /// <summary>Problem detail: the stored hash, or the bytes needed.</summary>
    public ulong Expected { get; }

    /// <summary>Problem detail: the computed hash, or the bytes available.</summary>
    public ulong Actual { get; }

    /// <summary>A sentence for logs and exceptions (allocates).</summary>
    public string Reason => Problem switch
    {
        JournalEntryProblem.None => $"valid entry of transaction {Header.TransactionId}, {EntrySize} bytes",
        JournalEntryProblem.Empty => "no entry: the header bytes are all zero",
        JournalEntryProblem.TruncatedHeader => $"only {Actual} bytes, fewer than a {JournalEntryHeader.Size}-byte header",
        JournalEntryProblem.BadMagic => $"magic 0x{Actual:x16} is not CAIRNJE1 (0x{Expected:x16})",
        JournalEntryProblem.HeaderChecksumMismatch => $"header checksum mismatch (stored 0x{Expected:x16}, computed 0x{Actual:x16})",
        JournalEntryProblem.UnsupportedVersion => $"format version {Actual} is not supported (this build reads {Expected})",
        JournalEntryProblem.UnknownFlags => $"unknown flag bits 0x{Actual:x}",
        JournalEntryProblem.BadSizes =>
            $"inconsistent sizes: {Header.PageCount} records, payload {Header.PayloadSize} bytes stored, {Header.UncompressedPayloadSize} uncompressed, flags {Header.Flags}",
        JournalEntryProblem.Truncated => $"the entry needs {Expected} bytes but only {Actual} are available",
        JournalEntryProblem.PayloadHashMismatch => $"payload hash mismatch (stored 0x{Expected:x16}, computed 0x{Actual:x16})",
        _ => Problem.ToString(),
    };

    public override string ToString() => $"offset {Offset}: {Reason}";
}
