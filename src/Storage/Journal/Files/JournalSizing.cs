namespace Cairn.Journal.Files;

/// <summary>
/// How big the next journal file is. A quiet environment keeps small journals (little disk, fast
/// recovery); one that fills a file within <see cref="FastFill"/> gets the next one twice as big, up
/// to the cap, so a busy environment is not creating a file every few commits; one that took longer
/// than <see cref="SlowFill"/> goes back down. A transaction larger than the cap gets a file of exactly
/// its size, which holds nothing else and can go as soon as it is synced (a larger, half-used file
/// would survive the sync and be read by every recovery until it filled).
/// </summary>
internal sealed class JournalSizing
{
    public static readonly TimeSpan FastFill = TimeSpan.FromSeconds(30);
    public static readonly TimeSpan SlowFill = TimeSpan.FromMinutes(5);

    /// <summary>Entries from this size on get a new journal not pre-zeroed (<see cref="WantsUnzeroedFile"/>).</summary>
    public const long UnzeroedEntryBytes = 1L << 20;

    /// <summary>
    /// Whether a new journal opened for (or filling with) entries of <paramref name="entryLength"/> bytes is better
    /// left unzeroed. Pre-zeroing writes every byte of the file once more, which is what makes a small commit one
    /// write with nothing for the file system to do; an entry of a MiB or more pays far less for the blocks its own
    /// write allocates (on this machine's ext4, a 6.4 MB O_DIRECT|O_DSYNC write took 14.8 ms into new blocks, 12.4 ms
    /// into zeros, and the zeros themselves 12 ms more). Linux only: there an O_DSYNC write that extends a file
    /// makes the new size durable with the data; on Windows a journal is always pre-zeroed.
    /// </summary>
    public static bool WantsUnzeroedFile(long entryLength) => entryLength >= UnzeroedEntryBytes && OperatingSystem.IsLinux();

    public JournalSizing(long initialSize, long maxSize)
    {
        if (initialSize <= 0 || initialSize % JournalEntryHeader.Alignment != 0)
            throw new ArgumentOutOfRangeException(nameof(initialSize), initialSize, $"must be a positive multiple of {JournalEntryHeader.Alignment}");
        if (maxSize < initialSize || maxSize % JournalEntryHeader.Alignment != 0)
            throw new ArgumentOutOfRangeException(nameof(maxSize), maxSize, $"must be a multiple of {JournalEntryHeader.Alignment} and at least the initial size");
        InitialSize = initialSize;
        MaxSize = maxSize;
    }

    public long InitialSize { get; }

    public long MaxSize { get; }

    /// <summary>
    /// The size for a new file that must take an entry of <paramref name="entryLength"/> bytes, after
    /// a file of <paramref name="previousSize"/> bytes (0: none) that filled in <paramref name="fillTime"/>.
    /// </summary>
    public long NextSize(long previousSize, TimeSpan fillTime, long entryLength)
    {
        if (entryLength > MaxSize)
            return JournalEntryHeader.AlignUp(entryLength);
        long size = previousSize <= 0 ? InitialSize : Math.Clamp(previousSize, InitialSize, MaxSize);
        if (previousSize > 0 && fillTime < FastFill)
            size = Math.Min(size * 2, MaxSize);
        else if (previousSize > 0 && fillTime > SlowFill)
            size = Math.Max(size / 2, InitialSize);
        while (size < entryLength)
            size = Math.Min(size * 2, MaxSize);
        return JournalEntryHeader.AlignUp(size);
    }
}
