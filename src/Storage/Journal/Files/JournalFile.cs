using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// The journal being appended to: a pre-allocated, pre-zeroed (or recycled) file opened
/// O_DIRECT|O_DSYNC, so one write of an aligned entry is one durable I/O with nothing else for the
/// file system to do. Entries go one after another from offset 0.
/// </summary>
internal sealed unsafe class JournalFile : IDisposable
{
    private readonly PalFile _file;

    private JournalFile(long sequence, string path, PalFile file, long size, long createdTimestamp)
    {
        Sequence = sequence;
        FilePath = path;
        _file = file;
        Size = size;
        CreatedTimestamp = createdTimestamp;
    }

    public long Sequence { get; }

    public string FilePath { get; }

    /// <summary>Bytes the file was prepared with; entries never go past it.</summary>
    public long Size { get; }

    /// <summary>Where the next entry goes.</summary>
    public long WritePosition { get; private set; }

    public long FirstTransactionId { get; private set; } = -1;

    public long LastTransactionId { get; private set; } = -1;

    /// <summary>When the file was opened (Stopwatch ticks), for sizing the next one by how fast this one filled.</summary>
    public long CreatedTimestamp { get; }

    public bool DirectIOFellBack => _file.DirectIOFellBack;

    /// <summary>
    /// Opens <paramref name="path"/> for appending, extending it with written zeros to
    /// <paramref name="size"/> if it is shorter (a new file, or a recycled one that is smaller).
    /// </summary>
    public static JournalFile Open(long sequence, string path, long size)
    {
        var file = PalFile.OpenJournal(path, size);
        return new JournalFile(sequence, path, file, size, System.Diagnostics.Stopwatch.GetTimestamp());
    }

    public bool Fits(long length) => WritePosition + length <= Size;

    /// <summary>One durable write of an aligned entry at <see cref="WritePosition"/>; the position moves only on success.</summary>
    public void Append(byte* entry, long length, long firstTransactionId, long lastTransactionId)
    {
        var buffer = new PalBuffer(entry, length);
        _file.Write(new ReadOnlySpan<PalBuffer>(&buffer, 1), WritePosition);
        WritePosition += length;
        if (FirstTransactionId < 0)
            FirstTransactionId = firstTransactionId;
        LastTransactionId = lastTransactionId;
    }

    /// <summary>Overwrites <paramref name="length"/> bytes at <paramref name="offset"/> with zeros (durably: the handle is O_DSYNC).</summary>
    public void ZeroBlock(byte* zeros, long offset, long length)
    {
        var buffer = new PalBuffer(zeros, length);
        _file.Write(new ReadOnlySpan<PalBuffer>(&buffer, 1), offset);
    }

    public void Dispose() => _file.Dispose();
}
