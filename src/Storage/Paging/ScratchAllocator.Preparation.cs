using Cairn.Pal;

namespace Cairn.Paging;

/// <summary>Arenas prepared ahead of a writer that carves fresh memory: the preparing thread's side.</summary>
internal sealed unsafe partial class ScratchAllocator
{
    /// <summary>The thread pool as the <c>prepareAhead</c> scheduler.</summary>
    public static void OnThreadPool(Action work) =>
        ThreadPool.UnsafeQueueUserWorkItem(static w => w(), work, preferLocal: false);

    /// <summary>Bytes of fresh arenas prepared ahead and not yet carved (part of <see cref="MappedBytes"/>).</summary>
    public long PreparedBytes
    {
        get
        {
            lock (_gate)
                return (long)_prepared.Count * ArenaBytes;
        }
    }

    /// <summary>
    /// On the preparing thread: maps fresh arenas and faults every page in (writing the zero it already holds, so it
    /// stays zero) until <see cref="PreparedArenaTarget"/> wait, outside the gate. Memory the OS refuses here is left
    /// for the writer's own mapping to report.
    /// </summary>
    private void PrepareArenas()
    {
        while (true)
        {
            lock (_gate)
            {
                if (_disposed || _prepared.Count >= PreparedArenaTarget)
                {
                    _preparing = false;
                    return;
                }
            }
            byte* memory;
            try
            {
                memory = PalMemory.Allocate(ArenaBytes, ArenaBytes);
            }
            catch (PalIOException)
            {
                lock (_gate)
                    _preparing = false;
                return;
            }
            for (int offset = 0; offset < ArenaBytes; offset += SmallestOsPage)
                Volatile.Write(ref memory[offset], 0);
            bool keep;
            lock (_gate)
            {
                keep = !_disposed;
                if (keep)
                {
                    var arena = new Arena((nint)memory, ArenaBytes, dedicated: false);
                    _arenas.Add(arena.Start, arena);
                    _mappedBytes += ArenaBytes;
                    _prepared.Push(arena);
                }
                else
                {
                    _preparing = false;
                }
            }
            if (!keep)
            {
                PalMemory.Free(memory, ArenaBytes);
                return;
            }
        }
    }
}
