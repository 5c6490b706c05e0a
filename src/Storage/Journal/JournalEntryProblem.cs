namespace Cairn.Journal;

/// <summary>Why the bytes at a journal position are not a valid entry.</summary>
internal enum JournalEntryProblem
{
    None = 0,

    /// <summary>The header's bytes are all zero: nothing was written here (the end of a pre-zeroed journal).</summary>
    Empty,

    /// <summary>Fewer bytes than a header are available, and they are not all zero.</summary>
    TruncatedHeader,

    /// <summary>The first eight bytes are not <c>CAIRNJE1</c>.</summary>
    BadMagic,

    /// <summary>The header checksum does not match: a torn or corrupt header.</summary>
    HeaderChecksumMismatch,

    /// <summary>A well-formed header of a format version this build cannot read.</summary>
    UnsupportedVersion,

    /// <summary>Flag bits this version does not define.</summary>
    UnknownFlags,

    /// <summary>Negative sizes or counts, or sizes that contradict each other or the flags.</summary>
    BadSizes,

    /// <summary>The entry (header, payload and padding) runs past the available bytes.</summary>
    Truncated,

    /// <summary>The payload hash does not match: a torn or corrupt payload.</summary>
    PayloadHashMismatch,
}
