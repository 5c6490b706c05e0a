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
