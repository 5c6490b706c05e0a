using Cairn.Journal.Files;

namespace Cairn.Recovery;

/// <summary>
/// How a two-thread replay buffers the journal between its threads: chunks of <see cref="ChunkBytes"/> (an entry larger
/// than one is read whole), and at most <see cref="MaxBufferedBytes"/> of them read and not yet applied (besides one entry
/// larger than that, alone). Not a user option: the defaults are the engine's; tests pass small ones to make a small
/// journal cross many chunks and fill the bound.
/// </summary>
internal readonly record struct ReplayBuffers(long ChunkBytes, long MaxBufferedBytes)
{
    /// <summary>4 MiB chunks (what the single-thread replay read at a time), 8 of them: the reader may run 32 MiB ahead.</summary>
    public static ReplayBuffers Default => new(JournalReadWindow.ChunkBytes, 8 * JournalReadWindow.ChunkBytes);
}
