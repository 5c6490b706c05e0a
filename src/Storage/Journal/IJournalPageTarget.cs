namespace Cairn.Journal;

/// <summary>Where replay writes pages: the data file being recovered (or, in tests, memory).</summary>
internal unsafe interface IJournalPageTarget
{
    /// <summary>
    /// Returns <paramref name="pageCount"/> × 8192 writable bytes for the run starting at
    /// <paramref name="pageNumber"/>, valid until the next call. When
    /// <paramref name="needsCurrentContent"/> is true the bytes must be the run's current content
    /// (the record patches them); otherwise the record overwrites all of them and they may be anything.
    /// </summary>
    byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent);
}
