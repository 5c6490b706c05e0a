using System.Runtime.InteropServices;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Paging;

namespace Cairn.Backups;

/// <summary>
/// A fuzzy copy of an open environment, as a hot physical backup takes it (docs/design.md, "Backup and
/// restore"). The caller holds the flusher's syncs for the whole copy, so no journal from the header
/// <paramref name="synced"/> (journal position P) on is released (a checkpoint may still sync and write a newer
/// header into the live file: the copy gets P's anyway); flushes go on. This copies the
/// data file while the flusher may write into it, so each page holds some version between P and the copy's
/// end (or a torn mix of two), then the journals from P up to the end of the last durable entry, cut there,
/// and writes <paramref name="synced"/> into both header copies of the copied data file. Opening the copy
/// replays every entry from P; diff replay is last-writer-wins per byte, so each page comes out as the last
/// entry left it (docs/on-disk-format.md, "Diff operations").
/// </summary>
/// <remarks>
/// Correct only because the data file never holds a version whose journal entry is not durable: the flusher
/// writes only published (journaled) versions, so every version the copy can see lies at or before the
/// end position taken after the data file was read.
/// </remarks>
internal sealed class HotCopy(string dataFilePath, string dataFileName, long dataPages, string journalDirectory, FileHeader synced,
    Func<(long TransactionId, JournalPosition End)> durableEnd, IBackupTarget target, Action<long, long>? progress, CopyPace? pace,
    bool lowPriority, CancellationToken cancellation)
{
    // Progress, pace and cancellation come once per chunk; the journals' bytes go file to file in the kernel where they can.
    private const int ChunkSize = 1 << 20;
    // The data file's largest chunk: a direct write the device gets as several requests at once (measured faster than
    // 1 MiB, docs/benchmarks.md). Smaller files go in 1/32nds of their size, down to ChunkSize, so progress, pace and
    // cancellation still come often.
    private const int DataChunkMaxSize = 8 << 20;
    private const int DataChunksPerFile = 32;
    private long _done;
    private long _total;
    private bool _lastReportComplete; // false: a final report is owed (the total shrank after the last one)

    /// <summary>Copies; returns the transaction the copy opens to, the bytes and the number of files copied.</summary>
    public (long TransactionId, long Bytes, int Files) Run()
    {
        using var data = PalFile.Open(dataFilePath, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
        // Pages past this length were allocated after P; their first version is journaled against zeros or whole. The
        // environment's page count (taken after P) never shrinks while it is open; the file's size may, past it, when a
        // growth fails, and a read there would find the file's end.
        long dataLength = Math.Min(data.GetSize() / StorageConstants.PageSize, dataPages) * StorageConstants.PageSize;
        _total = dataLength + JournalBytesFrom(synced.JournalSequence);
        CopyDataFile(data, dataLength);

        var (transactionId, end) = durableEnd();
        var journals = JournalsUpTo(end);
        _total = dataLength + journals.Sum(j => j.Length);
        foreach (var (name, path, length) in journals)
            CopyFile(path, JournalFileName.DirectoryName + "/" + name, length);
        // The total first counted the journal files whole; with no entry after P nothing is copied after the data file,
        // so the last report would stay short of the total: one more says the copy is complete.
        if (!_lastReportComplete)
            Report();
        target.Complete(Math.Max(transactionId, synced.LastTransactionId));
        return (Math.Max(transactionId, synced.LastTransactionId), _done, 1 + journals.Count);
    }

    /// <summary>Both header copies say P, whatever a checkpoint during the copy wrote into the live file's header.</summary>
    /// <remarks>The first chunk holds both header pages: the data file is at least two pages and the chunk at least 1 MiB.</remarks>
    private void WriteHeaderPages(Span<byte> firstChunk)
    {
        var header = synced;
        var bytes = MemoryMarshal.AsBytes(new ReadOnlySpan<FileHeader>(in header));
        for (int copy = 0; copy < 2; copy++)
        {
            var page = firstChunk.Slice(copy * StorageConstants.PageSize, StorageConstants.PageSize);
            page.Clear();
            bytes.CopyTo(page);
        }
    }

    /// <summary>The journals recovery reads from P to <paramref name="end"/>, the last cut at the end of its last durable entry.</summary>
    private List<(string Name, string Path, long Length)> JournalsUpTo(JournalPosition end)
    {
        var journals = new List<(string, string, long)>();
        bool nothingAfterP = end.Sequence == 0 || end.Sequence < synced.JournalSequence
            || (end.Sequence == synced.JournalSequence && end.EndOffset <= synced.JournalOffset);
        if (nothingAfterP || !Directory.Exists(journalDirectory))
            return journals;
        foreach (string path in Directory.EnumerateFiles(journalDirectory).Order(StringComparer.Ordinal))
        {
            string name = Path.GetFileName(path);
            if (!JournalFileName.TryParse(name, out long sequence) || sequence < synced.JournalSequence || sequence > end.Sequence)
                continue;
            journals.Add((name, path, sequence == end.Sequence ? end.EndOffset : new FileInfo(path).Length));
        }
        return journals;
    }

    private long JournalBytesFrom(long sequence)
    {
        if (!Directory.Exists(journalDirectory))
            return 0;
        long bytes = 0;
        foreach (var file in new DirectoryInfo(journalDirectory).EnumerateFiles())
            if (JournalFileName.TryParse(file.Name, out long s) && s >= sequence)
                bytes += file.Length;
        return bytes;
    }

    /// <summary>
    /// Copies the data file's first <paramref name="length"/> bytes (whole pages), its header pages replaced by P. A page
    /// that cannot be read fails the backup with a typed exception naming the data file and the page's offset, never a
    /// fault of the process: a target that only hands its bytes to the kernel writes them from a mapping of the file
    /// (<see cref="CopyMapped"/>), any other gets them read with positioned reads (<see cref="CopyRead"/>).
    /// </summary>
    private void CopyDataFile(PalFile data, long length)
    {
        target.BeginFile(dataFileName, length, wholePages: true);
        if (length > 0)
        {
            if (target.WritesMappedPagesSafely)
                CopyMapped(data, length);
            else
                CopyRead(data, length);
        }
        target.EndFile();
    }

    /// <summary>
    /// The data file from a mapping of it: a directory target writes the mapped pages to the device directly, with no
    /// copy through this process (LMDB's copy does the same from its map); positioned reads into a buffer were measured
    /// 0.55-0.79 of LMDB's copy against 0.84-0.92 for this (docs/benchmarks.md, "stop 40"). A page the kernel cannot
    /// fault in fails the write; the chunk is then read page by page to name the page (<see cref="ReadAheadChunks.ThrowIfUnreadable"/>).
    /// </summary>
    private unsafe void CopyMapped(PalFile data, long length)
    {
        int headerBytes = (int)Math.Min(length, 2L * StorageConstants.PageSize);
        // Read, not taken from the mapping: this process copies them. Direct writes need aligned memory.
        byte* header = (byte*)NativeMemory.AlignedAlloc((nuint)headerBytes, StorageConstants.PageSize);
        try
        {
            var pages = new Span<byte>(header, headerBytes);
            ReadAheadChunks.ReadExactly(data, pages, 0);
            WriteHeaderPages(pages);
            target.Write(pages);
        }
        finally
        {
            NativeMemory.AlignedFree(header);
        }
        Advance(headerBytes);
        using var map = data.Map(length);
        int chunkSize = DataChunkSize(length);
        for (long offset = headerBytes; offset < length; offset += chunkSize)
        {
            cancellation.ThrowIfCancellationRequested();
            int chunk = (int)Math.Min(chunkSize, length - offset);
            // The next chunk is read ahead while this one is written (a data file not in memory faults page by page otherwise).
            if (offset + chunk < length)
                map.Prefetch(offset + chunk, Math.Min(chunkSize, length - offset - chunk));
            try
            {
                target.Write(map.GetSpan(offset, chunk));
            }
            catch (PalIOException)
            {
                // Most likely EFAULT for a page of the mapping the kernel could not read: the read names the page. Any
                // other failure of the write (a full disk) finds every page readable and goes up as it was.
                ReadAheadChunks.ThrowIfUnreadable(data, offset, chunk);
                throw;
            }
            Advance(chunk);
        }
    }

    /// <summary>The data file read with positioned reads one chunk ahead of the writes (<see cref="ReadAheadChunks"/>).</summary>
    private void CopyRead(PalFile data, long length)
    {
        using var chunks = new ReadAheadChunks(data, length, DataChunkSize(length), lowPriority);
        bool first = true;
        for (var chunk = chunks.Next(); !chunk.IsEmpty; chunk = chunks.Next())
        {
            cancellation.ThrowIfCancellationRequested();
            if (first)
                WriteHeaderPages(chunk);
            first = false;
            target.Write(chunk);
            Advance(chunk.Length);
        }
    }

    /// <summary>The data file's chunk for a file of <paramref name="length"/> bytes: a 32nd of it, whole pages, 1 to 8 MiB.</summary>
    internal static int DataChunkSize(long length)
        => (int)Math.Clamp(length / DataChunksPerFile / StorageConstants.PageSize * StorageConstants.PageSize, ChunkSize, DataChunkMaxSize);

    /// <summary>Copies the first <paramref name="length"/> bytes of the file at <paramref name="path"/>.</summary>
    private void CopyFile(string path, string relativePath, long length)
    {
        using var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
        target.BeginFile(relativePath, length);
        for (long offset = 0; offset < length; offset += ChunkSize)
        {
            cancellation.ThrowIfCancellationRequested();
            int chunk = (int)Math.Min(ChunkSize, length - offset);
            target.CopyFrom(file, offset, chunk);
            Advance(chunk);
        }
        target.EndFile();
    }

    private void Advance(long bytes)
    {
        _done += bytes;
        pace?.Copied(bytes);
        Report();
    }

    private void Report()
    {
        _total = Math.Max(_total, _done);
        _lastReportComplete = _done >= _total;
        progress?.Invoke(_done, _total);
    }
}
