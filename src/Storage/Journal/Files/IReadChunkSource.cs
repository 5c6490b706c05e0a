namespace Cairn.Journal.Files;

/// <summary>
/// Hands a <see cref="JournalReadWindow"/> the buffer for each chunk it reads, when the bytes of a chunk must outlive
/// the next read (the replay validates entries on one thread and applies them on another). The source owns every
/// buffer it hands out; the window only reads into the last one.
/// </summary>
internal interface IReadChunkSource
{
    /// <summary>
    /// The buffer to read the next chunk of <paramref name="bytes"/> into (the window grows it if it is smaller). The
    /// window is done with the buffer it had: from now on only the source's owner decides how long that one lives.
    /// </summary>
    JournalBuffer Next(long bytes);
}
