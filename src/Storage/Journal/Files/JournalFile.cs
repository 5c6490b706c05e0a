using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// A journal in service: a pre-allocated, pre-zeroed (or recycled) file opened O_DIRECT|O_DSYNC, so one
/// write of aligned entries is one durable I/O with nothing else for the file system to do. Entries go one
/// after another from offset 0. A branch of a journal group also has <em>linked</em> journals in service:
/// its name for its root's journal file (a hard link), which the root writes and the branch only records.
/// </summary>
internal sealed unsafe class JournalFile : IDisposable
{
    private readonly PalFile? _file;

    private JournalFile(long sequence, string path, PalFile? file, long size, long createdTimestamp, bool preZeroed = true)
    {
        Sequence = sequence;
        FilePath = path;
        _file = file;
        Size = size;
        CreatedTimestamp = createdTimestamp;
        PreZeroed = preZeroed;
    }

    public long Sequence { get; }

    public string FilePath { get; }

    /// <summary>Bytes the file was prepared with (of one opened unzeroed, the bytes it may grow to); entries never go past it.</summary>
    public long Size { get; }

    /// <summary>
    /// False for a file opened by <see cref="OpenUnzeroed"/>: it is as long as what was written to it, each write
    /// extending it (its blocks allocated inside that write).
    /// </summary>
    public bool PreZeroed { get; }

    /// <summary>Bytes it holds on disk once retired: its size, or of a file opened unzeroed, how far it was written.</summary>
    public long SizeOnDisk => PreZeroed ? Size : WritePosition;

    /// <summary>The bytes of the last append (or reservation) to the file: how large the entries are that fill it.</summary>
    public long LastAppendLength { get; private set; }

    /// <summary>Where the next entry goes (of a linked journal: just past this environment's last entry in it).</summary>
    public long WritePosition { get; private set; }

    /// <summary>This environment's first transaction in the file, -1 if none (entries of other environments do not count).</summary>
    public long FirstTransactionId { get; private set; } = -1;

    /// <summary>This environment's last transaction in the file: it is kept until a sync covers it.</summary>
    public long LastTransactionId { get; private set; } = -1;

    /// <summary>When the file was opened (Stopwatch ticks), for sizing the next one by how fast this one filled.</summary>
    public long CreatedTimestamp { get; }

    public bool DirectIOFellBack => _file?.DirectIOFellBack ?? false;

    /// <summary>A name for another environment's journal file: written there, only recorded here.</summary>
    public bool IsLink => _file is null;

    /// <summary>
    /// Opens <paramref name="path"/> for appending, extending it with written zeros to
    /// <paramref name="size"/> if it is shorter (a new file, or a recycled one that is smaller).
    /// </summary>
    public static JournalFile Open(long sequence, string path, long size)
    {
        var file = PalFile.OpenJournal(path, size);
        return new JournalFile(sequence, path, file, size, System.Diagnostics.Stopwatch.GetTimestamp());
    }

    /// <summary>
    /// Creates <paramref name="path"/> for appending without writing anything to it: for large entries, which are
    /// cheaper to write into blocks they allocate than to write twice, zeros first (<see cref="JournalSizing.WantsUnzeroedFile"/>).
    /// Entries still never go past <paramref name="size"/>.
    /// </summary>
    public static JournalFile OpenUnzeroed(long sequence, string path, long size)
    {
        var file = PalFile.OpenJournal(path, 0);
        return new JournalFile(sequence, path, file, size, System.Diagnostics.Stopwatch.GetTimestamp(), preZeroed: false);
    }

    /// <summary>This environment's name <paramref name="linkPath"/> for a root's journal file of <paramref name="size"/> bytes.</summary>
    public static JournalFile Linked(long sequence, string linkPath, long size)
        => new(sequence, linkPath, null, size, System.Diagnostics.Stopwatch.GetTimestamp());

    /// <summary>Whether an entry of <paramref name="length"/> bytes fits after the last one (never: a linked journal is not written here).</summary>
    public bool Fits(long length) => _file is not null && WritePosition + length <= Size;

    /// <summary>One durable write of an aligned entry at <see cref="WritePosition"/>; the position moves only on success.</summary>
    public void Append(byte* entry, long length, long firstTransactionId, long lastTransactionId)
    {
        var buffer = new PalBuffer(entry, length);
        WriteAt(new ReadOnlySpan<PalBuffer>(&buffer, 1), WritePosition);
        WritePosition += length;
        LastAppendLength = length;
        NoteTransactions(firstTransactionId, lastTransactionId);
    }

    /// <summary>
    /// Claims <paramref name="length"/> bytes at <see cref="WritePosition"/> for a write that goes out later
    /// (<see cref="WriteAt"/>), so further writes can be placed after it while it is in flight. Returns where
    /// the claimed span begins.
    /// </summary>
    public long Reserve(long length)
    {
        _ = Writable;
        long offset = WritePosition;
        WritePosition += length;
        LastAppendLength = length;
        return offset;
    }

    /// <summary>After failed writes: the next entry goes at <paramref name="offset"/> again (their spans were wiped).</summary>
    public void Rewind(long offset) => WritePosition = offset;

    /// <summary>One durable vectored write of aligned entries, back to back at <paramref name="offset"/> (a span claimed with <see cref="Reserve"/>).</summary>
    public void WriteAt(ReadOnlySpan<PalBuffer> entries, long offset) => Writable.Write(entries, offset);

    private PalFile Writable => _file
        ?? throw new InvalidOperationException($"'{FilePath}' is a link to another environment's journal; it is not written through this name.");

    /// <summary>Records that this environment's transactions <paramref name="first"/>..<paramref name="last"/> are in the file.</summary>
    public void NoteTransactions(long first, long last)
    {
        if (FirstTransactionId < 0)
            FirstTransactionId = first;
        LastTransactionId = last;
    }

    /// <summary>In a linked journal: this environment's entry ends at <paramref name="end"/> (the root wrote it there).</summary>
    public void NoteLinkedEntry(long end, long transactionId)
    {
        WritePosition = end;
        NoteTransactions(transactionId, transactionId);
    }

    /// <summary>
    /// After a failed write of an entry at <paramref name="offset"/>: makes sure no part of it that reached the disk can
    /// be replayed. A pre-zeroed file gets <paramref name="zeros"/> (one 4 KiB block) over the entry's first block; one
    /// opened unzeroed is cut back to <paramref name="offset"/> if it is longer, and synced, which needs no free space
    /// (writing zeros past its end would, and the failure is most often a full disk).
    /// </summary>
    public void Unwrite(byte* zeros, long offset)
    {
        if (PreZeroed)
        {
            var buffer = new PalBuffer(zeros, JournalEntryHeader.Alignment);
            Writable.Write(new ReadOnlySpan<PalBuffer>(&buffer, 1), offset);
            return;
        }
        if (Writable.GetSize() > offset)
            Writable.SetSize(offset);
        Writable.Sync();
    }

    public void Dispose() => _file?.Dispose();
}
