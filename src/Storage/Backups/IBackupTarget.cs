namespace Cairn.Backups;

/// <summary>Where a backup's files go, one after another: a directory, or one stream.</summary>
internal interface IBackupTarget
{
    /// <summary>
    /// Starts the file at <paramref name="relativePath"/> ('/'-separated), exactly <paramref name="length"/> bytes long.
    /// <paramref name="wholePages"/>: every write to it will be whole pages from page-aligned memory (a file target
    /// may then write them past the page cache).
    /// </summary>
    void BeginFile(string relativePath, long length, bool wholePages = false);

    void Write(ReadOnlySpan<byte> data);

    /// <summary>
    /// <see cref="Write"/> only hands the bytes to the kernel, never reads them in this process: they may come from a
    /// mapping of a file, because a page of it that cannot be read (EIO, the file cut short) fails the write (EFAULT)
    /// instead of faulting the process (SIGBUS).
    /// </summary>
    bool WritesMappedPagesSafely { get; }

    /// <summary>Writes the next <paramref name="length"/> bytes from <paramref name="source"/> at <paramref name="sourceOffset"/> (in the kernel where the target is a file).</summary>
    void CopyFrom(Cairn.Pal.PalFile source, long sourceOffset, int length);

    void EndFile();

    /// <summary>After the last file: makes the backup whole and durable, as of <paramref name="transactionId"/>.</summary>
    void Complete(long transactionId);
}
