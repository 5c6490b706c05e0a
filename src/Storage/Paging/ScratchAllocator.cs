using Cairn.Pal;

namespace Cairn.Paging;

/// <summary>
/// Native memory for page versions that live outside the data file: pages a write transaction
/// modifies, and committed versions until the flusher has written them and no reader needs them.
/// <para>
/// Memory comes from the OS in 2 MiB arenas (<see cref="PalMemory"/>: one mapping, huge pages where the
/// OS has them, so a fresh arena costs one fault rather than 256 × 2) and is carved into pages and short
/// runs; a freed page goes back to its arena and is handed out again before fresh memory is touched.
/// Arenas with free pages are reused in the order they got them, so the one being filled fills up and
/// the others drain. An arena whose pages are all free is kept for reuse while the spare memory (mapped
/// but not in use) stays within <c>retainedSpareBytes</c>, and unmapped otherwise;
/// <see cref="ReleaseSpare"/> (the flusher calls it when the environment goes idle) unmaps every empty
/// arena. Runs longer than a quarter of an arena get a mapping of their own, unmapped when freed.
/// </para>
/// <para>
/// A writer that keeps carving fresh arenas (a fill) would otherwise pay each arena's first-touch fault, the kernel
/// zeroing 2 MiB, on its own path: a quarter of a sequential fill's writer time. With a <c>prepareAhead</c> scheduler
/// (the environment passes the thread pool) the allocator keeps up to <see cref="PreparedArenaTarget"/> arenas mapped
/// and faulted in by another thread, refilled whenever the writer takes one or has to map its own.
/// </para>
/// <para>
/// <see cref="BytesInUse"/> counts live page versions exactly (what <c>MaxScratchBytes</c> bounds);
/// <see cref="MappedBytes"/> is what the OS has given, live or spare.
/// </para>
/// </summary>
internal sealed unsafe partial class ScratchAllocator : IDisposable
{
    public const int ArenaBytes = 2 << 20;
    public const int PagesPerArena = ArenaBytes / StorageConstants.PageSize;
    /// <summary>Longer runs get a mapping of their own: carving them would leave arenas mostly unused at their ends.</summary>
    public const int MaxArenaRun = PagesPerArena / 4;

    /// <summary>The spare memory kept when nothing else is said: a flush cycle's worth for a small environment.</summary>
    public const long DefaultRetainedSpareBytes = 64L << 20;

    // Every page of a prepared arena is touched at this stride: the smallest page an OS maps (huge pages need only one touch).
    private const int SmallestOsPage = 4096;

    /// <summary>Arenas kept mapped and faulted in ahead of a writer that carves fresh memory.</summary>
    public const int PreparedArenaTarget = 2;

    private readonly long _retainedSpareBytes;
    // Runs the preparation of arenas off the writer's thread; null: no preparation (each arena is faulted by its first user).
    private readonly Action<Action>? _prepareAhead;

    // Guards everything below: the writer allocates and frees, the flusher and the reclaimer free from
    // their threads, the flusher releases spare arenas. Held for a few loads and stores per call; the
    // OS calls (map, unmap) and the zeroing of reused pages run outside it.
    private readonly Lock _gate = new();
    private readonly Dictionary<nint, Arena> _arenas = [];
    // The arena new pages and runs are cut from (its untouched end), or null before the first.
    private Arena? _carving;
    // Arenas with free pages, oldest first (linked through Arena.NextReusable).
    private Arena? _reusableHead;
    private Arena? _reusableTail;
    // Arenas with no page in use, kept for reuse (none is the carving arena or on the reusable list).
    private readonly Stack<Arena> _empty = new();
    // Fresh arenas faulted in by the preparing thread, still zero; taken after the kept empty ones.
    private readonly Stack<Arena> _prepared = new();
    // A preparation is queued or running (at most one at a time).
    private bool _preparing;
    private bool _disposed;
    private long _bytesInUse;
    private long _mappedBytes;
    private long _allocations;
    private long _allocationsAtIdleCheck = -1;

    /// <param name="retainedSpareBytes">Spare memory (mapped, no page in use) kept for reuse rather than unmapped.</param>
    /// <param name="prepareAhead">
    /// Runs a preparation of fresh arenas on another thread (the environment passes the thread pool); null prepares none.
    /// </param>
    public ScratchAllocator(long retainedSpareBytes = DefaultRetainedSpareBytes, Action<Action>? prepareAhead = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(retainedSpareBytes);
        _retainedSpareBytes = retainedSpareBytes;
        _prepareAhead = prepareAhead;
    }

    /// <summary>Bytes held by live page versions (not counting free pages and spare arenas).</summary>
    public long BytesInUse => Interlocked.Read(ref _bytesInUse);

    /// <summary>Bytes mapped from the OS: live pages, free pages in arenas, and spare arenas.</summary>
    public long MappedBytes => Interlocked.Read(ref _mappedBytes);

    /// <summary>Pages (a run of <paramref name="pageCount"/> contiguous pages) whose contents are undefined: for callers that overwrite all of it.</summary>
    public byte* Allocate(int pageCount) => Allocate(pageCount, zeroed: false);

    /// <summary>Zero-filled pages. Memory fresh from the OS is already zero and is not cleared again.</summary>
    public byte* AllocateZeroed(int pageCount) => Allocate(pageCount, zeroed: true);

    private byte* Allocate(int pageCount, bool zeroed)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(pageCount, 1);
        long bytes = (long)pageCount * StorageConstants.PageSize;
        if (pageCount > MaxArenaRun)
            return AllocateDedicated(pageCount, bytes);

        byte* memory;
        int dirtyPages; // how many of the pages, from the first, may hold old contents
        bool prepare = false;
        lock (_gate)
        {
            if (pageCount == 1 && _reusableHead is { } reusable)
            {
                int index = reusable.FreePages[--reusable.FreeCount];
                if (reusable.FreeCount == 0)
                    UnlinkReusableHead();
                reusable.Used++;
                memory = reusable.PageAt(index);
                dirtyPages = index < reusable.Touched ? 1 : 0;
                // A page of a retired carving tail may lie past Touched: once handed out it holds what its user wrote,
                // and the next zeroed allocation of it must clear it (issue 30: a new free-space section kept old bytes).
                reusable.Touched = Math.Max(reusable.Touched, index + 1);
            }
            else
            {
                memory = Carve(pageCount, out dirtyPages, out prepare);
            }
            _bytesInUse += bytes; // after Carve, which throws if the OS has no memory
            _allocations++;
        }
        if (prepare)
            _prepareAhead!(PrepareArenas);
        if (zeroed && dirtyPages != 0)
            new Span<byte>(memory, dirtyPages * StorageConstants.PageSize).Clear();
        return memory;
    }

    public void Free(byte* memory, int pageCount)
    {
        long bytes = (long)pageCount * StorageConstants.PageSize;
        Arena? unmap = null;
        lock (_gate)
        {
            _bytesInUse -= bytes;
            var arena = _arenas[(nint)memory & ~(nint)(ArenaBytes - 1)];
            if (arena.IsDedicated)
            {
                _arenas.Remove(arena.Start);
                _mappedBytes -= arena.Bytes;
                unmap = arena;
            }
            else
            {
                int first = arena.IndexOf(memory);
                for (int i = 0; i < pageCount; i++)
                    arena.FreePages[arena.FreeCount++] = (ushort)(first + i);
                arena.Used -= pageCount;
                if (arena.Used == 0)
                    unmap = OnEmpty(arena);
                else if (!arena.OnReusableList)
                    AppendReusable(arena);
            }
        }
        if (unmap is not null)
            PalMemory.Free((byte*)unmap.Start, unmap.Bytes);
    }

    /// <summary>
    /// Whether spare memory is mapped (an arena with no page in use: what <see cref="ReleaseSpare"/> would give
    /// back) or may soon be (a preparation is queued or running). The flusher looks again while this holds, so arenas
    /// a preparation maps after the flusher's last idle release are not left mapped until the next burst.
    /// </summary>
    public bool HoldsSpareMemory
    {
        get
        {
            lock (_gate)
                return _empty.Count != 0 || _prepared.Count != 0 || _carving is { Used: 0 } || _preparing;
        }
    }

    /// <summary>
    /// <see cref="ReleaseSpare"/> if nothing was allocated since the previous call (which only takes note):
    /// the flusher calls this on its idle cycles, so a pause between two bursts of a busy writer keeps the
    /// memory and an environment left alone gives it back one idle cycle later.
    /// </summary>
    public long ReleaseSpareIfIdle()
    {
        lock (_gate)
        {
            if (_allocations != _allocationsAtIdleCheck)
            {
                _allocationsAtIdleCheck = _allocations;
                return 0;
            }
        }
        return ReleaseSpare();
    }

    /// <summary>
    /// Unmaps every arena with no page in use (the environment is idle: the memory serves no one until
    /// the next burst, which faults it in again). Returns the bytes given back.
    /// </summary>
    public long ReleaseSpare()
    {
        List<Arena> released = [];
        lock (_gate)
        {
            while (_empty.TryPop(out var arena))
                released.Add(arena);
            while (_prepared.TryPop(out var arena))
                released.Add(arena);
            if (_carving is { Used: 0 } carving)
            {
                if (carving.OnReusableList)
                    UnlinkReusable(carving);
                _carving = null;
                released.Add(carving);
            }
            foreach (var arena in released)
            {
                _arenas.Remove(arena.Start);
                _mappedBytes -= arena.Bytes;
            }
        }
        long bytes = 0;
        foreach (var arena in released)
        {
            PalMemory.Free((byte*)arena.Start, arena.Bytes);
            bytes += arena.Bytes;
        }
        return bytes;
    }

    /// <summary>
    /// Unmaps every arena with no page in use. Arenas that still hold live pages stay mapped: a page
    /// someone forgot to free leaks rather than turning a late access into a crash.
    /// </summary>
    public void Dispose()
    {
        List<Arena> released = [];
        lock (_gate)
        {
            foreach (var arena in _arenas.Values)
            {
                if (arena.Used == 0)
                    released.Add(arena);
            }
            foreach (var arena in released)
            {
                _arenas.Remove(arena.Start);
                _mappedBytes -= arena.Bytes;
            }
            _empty.Clear();
            _prepared.Clear();
            _carving = null;
            _reusableHead = _reusableTail = null;
            _disposed = true;
        }
        foreach (var arena in released)
            PalMemory.Free((byte*)arena.Start, arena.Bytes);
    }

    /// <summary>
    /// Under the gate: the next <paramref name="pageCount"/> untouched-so-far pages of the carving arena, moving to another
    /// arena if they do not fit: a kept empty one, else a prepared one, else a new mapping. <paramref name="prepare"/>
    /// says the caller is to start a preparation: the writer took fresh memory and the prepared ones run short.
    /// </summary>
    private byte* Carve(int pageCount, out int dirtyPages, out bool prepare)
    {
        prepare = false;
        var arena = _carving;
        if (arena is null || PagesPerArena - arena.Carved < pageCount)
        {
            if (arena is not null)
                RetireCarvingTail(arena);
            if (_empty.TryPop(out var spare))
            {
                arena = spare;
            }
            else
            {
                arena = _prepared.TryPop(out var prepared) ? prepared : MapArena();
                prepare = _prepareAhead is not null && !_preparing && _prepared.Count < PreparedArenaTarget;
                _preparing |= prepare;
            }
            _carving = arena;
        }
        int first = arena.Carved;
        arena.Carved += pageCount;
        arena.Used += pageCount;
        dirtyPages = Math.Clamp(arena.Touched - first, 0, pageCount);
        arena.Touched = Math.Max(arena.Touched, arena.Carved);
        return arena.PageAt(first);
    }

    /// <summary>Under the gate: the pages an arena had left when a run did not fit become its free pages.</summary>
    private void RetireCarvingTail(Arena arena)
    {
        if (arena.Carved == PagesPerArena)
            return;
        for (int index = arena.Carved; index < PagesPerArena; index++)
            arena.FreePages[arena.FreeCount++] = (ushort)index;
        arena.Carved = PagesPerArena;
        if (!arena.OnReusableList)
            AppendReusable(arena);
    }

    /// <summary>Under the gate: the arena's last page was freed. Keeps it (as a fresh arena) or returns it to unmap.</summary>
    private Arena? OnEmpty(Arena arena)
    {
        if (arena.OnReusableList)
            UnlinkReusable(arena);
        arena.FreeCount = 0;
        arena.Carved = 0;
        if (arena == _carving)
            return null;
        if (_mappedBytes - _bytesInUse - ArenaBytes < _retainedSpareBytes)
        {
            _empty.Push(arena);
            return null;
        }
        _arenas.Remove(arena.Start);
        _mappedBytes -= arena.Bytes;
        return arena;
    }

    /// <summary>Under the gate (an OS call, but once per 2 MiB).</summary>
    private Arena MapArena()
    {
        byte* memory = PalMemory.Allocate(ArenaBytes, ArenaBytes);
        var arena = new Arena((nint)memory, ArenaBytes, dedicated: false);
        _arenas.Add(arena.Start, arena);
        _mappedBytes += ArenaBytes;
        return arena;
    }

    private byte* AllocateDedicated(int pageCount, long bytes)
    {
        // Aligned like an arena, so Free finds it by the same lookup.
        byte* memory = PalMemory.Allocate(bytes, ArenaBytes);
        lock (_gate)
        {
            _arenas.Add((nint)memory, new Arena((nint)memory, bytes, dedicated: true) { Used = pageCount });
            _bytesInUse += bytes;
            _mappedBytes += bytes;
        }
        return memory;
    }

    private void AppendReusable(Arena arena)
    {
        arena.OnReusableList = true;
        arena.NextReusable = null;
        if (_reusableTail is null)
            _reusableHead = arena;
        else
            _reusableTail.NextReusable = arena;
        _reusableTail = arena;
    }

    private void UnlinkReusableHead()
    {
        var head = _reusableHead!;
        _reusableHead = head.NextReusable;
        if (_reusableHead is null)
            _reusableTail = null;
        head.NextReusable = null;
        head.OnReusableList = false;
    }

    /// <summary>Removes an arena from anywhere on the list (rare: when it empties, or at release).</summary>
    private void UnlinkReusable(Arena arena)
    {
        Arena? previous = null;
        for (var current = _reusableHead; current is not null; previous = current, current = current.NextReusable)
        {
            if (current != arena)
                continue;
            if (previous is null)
            {
                UnlinkReusableHead();
                return;
            }
            previous.NextReusable = current.NextReusable;
            if (_reusableTail == current)
                _reusableTail = previous;
            current.NextReusable = null;
            current.OnReusableList = false;
            return;
        }
    }

    /// <summary>One mapping: an arena of <see cref="PagesPerArena"/> pages, or a dedicated run. Fields are guarded by the allocator's gate.</summary>
    private sealed class Arena(nint start, long bytes, bool dedicated)
    {
        public readonly nint Start = start;
        public readonly long Bytes = bytes;
        public readonly bool IsDedicated = dedicated;
        /// <summary>Free page indexes below <see cref="Carved"/>, used last-in first-out (the warmest first).</summary>
        public readonly ushort[] FreePages = dedicated ? [] : new ushort[PagesPerArena];
        public int FreeCount;
        /// <summary>Pages [0, Carved) have been handed out since the arena was mapped or last emptied.</summary>
        public int Carved;
        /// <summary>Pages from here on were never handed out since the mapping: still zero from the OS.</summary>
        public int Touched;
        public int Used;
        public bool OnReusableList;
        public Arena? NextReusable;

        public byte* PageAt(int index) => (byte*)Start + (long)index * StorageConstants.PageSize;

        public int IndexOf(byte* page) => (int)(((nint)page - Start) / StorageConstants.PageSize);
    }
}
