using System.Runtime.InteropServices;

namespace Cairn.Transactions;

/// <summary>
/// Which environment-state epochs live read transactions are using, so the writer and flusher know
/// what may be reclaimed. Each reader publishes its epoch in a slot of its own (no shared counter
/// for concurrent readers to fight over); the oldest epoch is a scan of the slots.
/// </summary>
/// <remarks>
/// Publication protocol: a reader stores the epoch of the state it read, issues a full fence, and
/// re-reads the current state; if the state changed it publishes again. A reclaimer reads the current
/// epoch, fences, then scans. One of the two always sees the other, so nothing a reader can reach
/// is reclaimed (docs/design.md, "Readers, epochs and reclamation"). Slots live in fixed segments that never move,
/// so growing the table never races with a holder writing its slot.
/// </remarks>
internal sealed class ReaderTable
{
    private const long Free = 0;
    /// <summary>Held by a pooled read context between transactions: not claimable, not a reader.</summary>
    private const long Idle = -1;
    private const int SegmentSize = 64;

    [StructLayout(LayoutKind.Explicit, Size = 128)] // a cache line pair per slot: readers never share one
    private struct Slot
    {
        [FieldOffset(64)] public long Epoch;
        // When the read transaction holding the slot began (Environment.TickCount64), 0 between
        // transactions and for the writer's and flusher's slots: only for the oldest-reader-age gauge.
        [FieldOffset(72)] public long StartedAtMilliseconds;
    }

    private Slot[][] _segments = [new Slot[SegmentSize]];
    // Serializes adding a segment (readers claim slots without it; segments never move once published).
    private readonly Lock _growGate = new();

    [ThreadStatic] private static int t_hint;

    // Created only when a test asks (ForTestingPurposesOnly): in production there are none.
    private ReaderTableTestHooks? _testingHooks;

    /// <summary>Points where a test holds a thread inside the table (tests only).</summary>
    internal ReaderTableTestHooks ForTestingPurposesOnly() => _testingHooks ??= new();

    public int ActiveCount => ActiveCountExcept([]);

    /// <summary>
    /// Slots publishing an epoch, not counting <paramref name="internalSlots"/> (the writer's, the flusher's...). One
    /// scan judges each slot once: their holders keep working while it runs, and a slot judged twice (counted by the
    /// scan, then checked apart) could count a flush that ended in between as a read, or hide a read behind one that began.
    /// </summary>
    public int ActiveCountExcept(ReadOnlySpan<int> internalSlots)
    {
        int count = 0, index = 0;
        foreach (var segment in Volatile.Read(ref _segments))
        {
            for (int i = 0; i < segment.Length; i++, index++)
            {
                if (Volatile.Read(ref segment[i].Epoch) > Free && !internalSlots.Contains(index))
                    count++;
            }
        }
        _testingHooks?.AfterCounted?.Invoke();
        return count;
    }

    /// <summary>Claims a slot for a read context to keep across transactions; it starts idle.</summary>
    public int Reserve() => Acquire(Idle);

    /// <summary>Marks a reserved slot idle at the end of a transaction, keeping it for the next one.</summary>
    public void MarkIdle(int slot)
    {
        Volatile.Write(ref SlotAt(slot), Idle);
        Volatile.Write(ref StartedAtOf(slot), 0);
    }

    /// <summary>Notes when a read transaction began in <paramref name="slot"/> (for <see cref="OldestReadStartedAt"/>).</summary>
    public void MarkReadStarted(int slot) => Volatile.Write(ref StartedAtOf(slot), System.Environment.TickCount64);

    /// <summary>
    /// When the oldest read transaction still open began (<see cref="System.Environment.TickCount64"/>), or null
    /// when none is. A racy scan, exact enough for a gauge: a slot read while its reader ends may count once more.
    /// </summary>
    public long? OldestReadStartedAt()
    {
        long oldest = long.MaxValue;
        foreach (var segment in Volatile.Read(ref _segments))
        {
            for (int i = 0; i < segment.Length; i++)
            {
                long started = Volatile.Read(ref segment[i].StartedAtMilliseconds);
                if (started != 0 && started < oldest && Volatile.Read(ref segment[i].Epoch) > Free)
                    oldest = started;
            }
        }
        return oldest == long.MaxValue ? null : oldest;
    }

    /// <summary>Claims a slot holding <paramref name="epoch"/>; returns its index.</summary>
    public int Acquire(long epoch)
    {
        while (true)
        {
            var segments = Volatile.Read(ref _segments);
            int total = segments.Length * SegmentSize;
            int start = (uint)t_hint < (uint)total ? t_hint : 0;
            for (int n = 0; n < total; n++)
            {
                int index = start + n;
                if (index >= total)
                    index -= total;
                ref long slot = ref segments[index / SegmentSize][index % SegmentSize].Epoch;
                if (Volatile.Read(ref slot) == Free && Interlocked.CompareExchange(ref slot, epoch, Free) == Free)
                {
                    t_hint = index;
                    return index;
                }
            }
            Grow(segments);
        }
    }

    /// <summary>Re-publishes a new epoch in a held slot, with the full fence the protocol needs.</summary>
    public void Publish(int slot, long epoch) => Interlocked.Exchange(ref SlotAt(slot), epoch);

    public void Release(int slot)
    {
        Volatile.Write(ref StartedAtOf(slot), 0);
        Volatile.Write(ref SlotAt(slot), Free);
    }

    /// <summary>Whether a held slot currently publishes an epoch (its holder is inside a transaction).</summary>
    public bool IsActive(int slot) => Volatile.Read(ref SlotAt(slot)) > Free;

    /// <summary>The oldest epoch any reader uses, or <paramref name="currentEpoch"/> when none is older.</summary>
    public long OldestEpoch(long currentEpoch)
    {
        Interlocked.MemoryBarrier();
        long oldest = currentEpoch;
        foreach (var segment in Volatile.Read(ref _segments))
        {
            for (int i = 0; i < segment.Length; i++)
            {
                long epoch = Volatile.Read(ref segment[i].Epoch);
                if (epoch > Free && epoch < oldest)
                    oldest = epoch;
            }
        }
        return oldest;
    }

    /// <summary>
    /// Adds to <paramref name="epochs"/> the epoch of every slot in use, and <paramref name="currentEpoch"/> (the state
    /// a reader that has not published yet will pin). The same fence and scan as <see cref="OldestEpoch"/>.
    /// </summary>
    public void CollectEpochs(long currentEpoch, List<long> epochs)
    {
        Interlocked.MemoryBarrier();
        epochs.Add(currentEpoch);
        foreach (var segment in Volatile.Read(ref _segments))
        {
            for (int i = 0; i < segment.Length; i++)
            {
                long epoch = Volatile.Read(ref segment[i].Epoch);
                if (epoch > Free)
                    epochs.Add(epoch);
            }
        }
    }

    private ref long SlotAt(int index) => ref Volatile.Read(ref _segments)[index / SegmentSize][index % SegmentSize].Epoch;

    private ref long StartedAtOf(int index) => ref Volatile.Read(ref _segments)[index / SegmentSize][index % SegmentSize].StartedAtMilliseconds;

    private void Grow(Slot[][] seen)
    {
        lock (_growGate)
        {
            if (!ReferenceEquals(seen, _segments))
                return;
            var grown = new Slot[seen.Length + 1][];
            Array.Copy(seen, grown, seen.Length);
            grown[^1] = new Slot[SegmentSize];
            Volatile.Write(ref _segments, grown);
        }
    }
}
