using System.Numerics;
using System.Runtime.CompilerServices;

namespace Cairn.Diagnostics;

/// <summary>
/// The last <see cref="Capacity"/> I/O operations of one environment (journal writes, data-file
/// flushes and syncs), each with its size and duration, in a ring that the oldest records fall out of.
/// </summary>
/// <remarks>
/// <para>
/// <see cref="Record"/> is meant for the commit path and the flusher: it takes no lock, allocates
/// nothing and may be called from any number of threads at once. The caller times the operation
/// with <see cref="System.Diagnostics.Stopwatch.GetTimestamp"/> and records it whether or not it
/// succeeded:
/// </para>
/// <code>
/// long start = Stopwatch.GetTimestamp();
/// bool failed = true;
/// try { WriteEntry(...); failed = false; }
/// finally { stats.Record(IoOperationKind.JournalWrite, start, Stopwatch.GetTimestamp(), size, journalPath, txId, txId, 1, failed); }
/// </code>
/// <para>
/// Concurrency: a writer takes a sequence number with one atomic increment and writes slot
/// <c>sequence &amp; (Capacity - 1)</c>. Each slot has a version, odd (2s+1) while record s is
/// being written and even (2s+2) once it is complete; a writer claims the slot by swapping an even,
/// older version for its odd one with a compare-and-swap, so a slot's version only ever grows. A
/// writer that finds the slot held by another writer (one lagging a whole lap behind) or already
/// holding a newer record drops its record and counts it in <see cref="Dropped"/> instead of waiting.
/// A reader copies a slot between two reads of its version and keeps the copy only if both are the
/// same even version; since a slot's version never repeats, no writer touched the slot in between
/// and the copy is untorn. The version also names the record's sequence, which orders the snapshot.
/// </para>
/// </remarks>
public sealed class IoStats
{
    /// <summary>The capacity of <see cref="IoStats()"/>: 4096 records of 72 bytes each, 288 KiB.</summary>
    public const int DefaultCapacity = 4096;

    /// <summary>The smallest capacity accepted.</summary>
    public const int MinimumCapacity = 16;

    private readonly Slot[] _slots;
    private readonly long _mask;
    private readonly IoClock _clock;
    private long _nextSequence;
    private long _dropped;

    /// <summary>Statistics that keep the last <see cref="DefaultCapacity"/> operations.</summary>
    public IoStats()
        : this(DefaultCapacity)
    {
    }

    /// <summary>Statistics that keep the last <paramref name="capacity"/> operations.</summary>
    /// <param name="capacity">How many operations the ring keeps: a power of two, at least <see cref="MinimumCapacity"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="capacity"/> is not a power of two or is below 16.</exception>
    public IoStats(int capacity)
        : this(capacity, IoClock.StartNow())
    {
    }

    private IoStats(int capacity, IoClock clock)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, MinimumCapacity);
        if (!BitOperations.IsPow2(capacity))
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "The capacity must be a power of two.");
        _slots = new Slot[capacity];
        _mask = capacity - 1;
        _clock = clock;
    }

    /// <summary>
    /// A ring of <paramref name="capacity"/> holding <paramref name="operations"/> under their sequence numbers, with
    /// the given <see cref="TotalRecorded"/> and <see cref="Dropped"/>: statistics saved elsewhere (a dump read back by
    /// Cairn.Reports' <c>IoStatsJson.ReadJson</c>) made whole again, so that their <see cref="Snapshot"/> and
    /// summaries are those of the environment that recorded them. Times are kept exact to 100 ns.
    /// </summary>
    /// <param name="capacity">How many operations the ring keeps: a power of two, at least <see cref="MinimumCapacity"/>.</param>
    /// <param name="totalRecorded">How many operations the recording ring had ever recorded.</param>
    /// <param name="dropped">How many records it had dropped.</param>
    /// <param name="operations">Its operations, oldest first: increasing sequences, each among the last <paramref name="capacity"/> of <paramref name="totalRecorded"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The capacity, a count or an operation's kind, sequence, duration, size or environment count is out of range.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="operations"/> or an operation's file path is null.</exception>
    public static IoStats FromOperations(int capacity, long totalRecorded, long dropped, IReadOnlyList<IoOperation> operations)
    {
        ArgumentNullException.ThrowIfNull(operations);
        ArgumentOutOfRangeException.ThrowIfNegative(totalRecorded);
        ArgumentOutOfRangeException.ThrowIfNegative(dropped);
        var origin = operations.Count > 0 ? operations.Min(o => o.StartUtc) : DateTime.UnixEpoch;
        var stats = new IoStats(capacity, IoClock.StartingAt(origin));
        long previous = -1;
        foreach (var o in operations)
        {
            CheckRestored(o, previous, totalRecorded - capacity, totalRecorded);
            previous = o.Sequence;
            stats.Complete(o.Sequence, o.Kind, stats._clock.ToTimestamp(o.StartUtc), IoClock.ToElapsedTimestamp(o.Duration), o.Bytes, o.FilePath,
                           o.FirstTransactionId, o.LastTransactionId, o.TransactionCount, o.Failed, o.EnvironmentCount,
                           o.Environments.Count == 0 ? null : o.Environments);
        }
        stats._nextSequence = totalRecorded;
        stats._dropped = dropped;
        return stats;
    }

    private static void CheckRestored(in IoOperation operation, long previousSequence, long oldestSequence, long endSequence)
    {
        if (operation.Sequence <= previousSequence || operation.Sequence < oldestSequence || operation.Sequence >= endSequence)
            throw new ArgumentOutOfRangeException(nameof(operation), operation.Sequence,
                $"Sequence {operation.Sequence} is out of order, or outside the last {endSequence - Math.Max(0, oldestSequence)} of {endSequence} recorded.");
        if (!IoOperationKindNames.IsDefined(operation.Kind))
            ThrowUndefinedKind(operation.Kind);
        ArgumentNullException.ThrowIfNull(operation.FilePath);
        ArgumentOutOfRangeException.ThrowIfLessThan(operation.Duration, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfNegative(operation.Bytes);
        ArgumentOutOfRangeException.ThrowIfNegative(operation.TransactionCount);
        ArgumentOutOfRangeException.ThrowIfLessThan(operation.EnvironmentCount, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(operation.EnvironmentCount, ushort.MaxValue);
        ArgumentNullException.ThrowIfNull(operation.Environments);
    }

    /// <summary>Where every recorded operation is also measured (the environment's metrics), when the ring belongs to an environment.</summary>
    internal EnvironmentMetrics? Metrics { get; set; }

    /// <summary>How many operations the ring keeps.</summary>
    public int Capacity => _slots.Length;

    /// <summary>
    /// How many operations have ever been recorded (calls to <see cref="Record"/> that passed their
    /// argument checks), including those since overwritten and those <see cref="Dropped"/>.
    /// </summary>
    public long TotalRecorded => Volatile.Read(ref _nextSequence);

    /// <summary>
    /// How many records were lost because their slot was still being written by a writer a whole lap
    /// behind, or already held a newer record. Zero unless a writer stalls for <see cref="Capacity"/>
    /// other operations in the middle of recording one.
    /// </summary>
    public long Dropped => Volatile.Read(ref _dropped);

    /// <summary>Records one operation. No lock, no allocation; safe from any number of threads at once.</summary>
    /// <param name="kind">What the operation was.</param>
    /// <param name="startTimestamp"><see cref="System.Diagnostics.Stopwatch.GetTimestamp"/> before the operation.</param>
    /// <param name="endTimestamp"><see cref="System.Diagnostics.Stopwatch.GetTimestamp"/> after it (also when it threw).</param>
    /// <param name="bytes">Bytes the operation was asked to write; 0 for a sync.</param>
    /// <param name="filePath">The file written; kept by reference, not copied.</param>
    /// <param name="firstTransactionId">The lowest transaction the operation covers (see <see cref="IoOperation"/>).</param>
    /// <param name="lastTransactionId">The highest transaction the operation covers.</param>
    /// <param name="transactionCount">How many transactions a journal write carries.</param>
    /// <param name="failed">The operation threw.</param>
    /// <param name="environmentCount">How many environments' entries a journal write carries (a journal group's shared write: more than 1).</param>
    public void Record(IoOperationKind kind, long startTimestamp, long endTimestamp, long bytes, string filePath,
                       long firstTransactionId, long lastTransactionId, int transactionCount, bool failed = false, int environmentCount = 1)
        => RecordCarrying(kind, startTimestamp, endTimestamp, bytes, filePath, firstTransactionId, lastTransactionId, transactionCount, failed,
                          environmentCount, environments: null);

    /// <summary>
    /// <see cref="Record"/>, naming the environments a journal group's shared write carried
    /// (<see cref="IoOperation.Environments"/>; kept by reference, not copied).
    /// </summary>
    internal void RecordCarrying(IoOperationKind kind, long startTimestamp, long endTimestamp, long bytes, string filePath,
                         long firstTransactionId, long lastTransactionId, int transactionCount, bool failed, int environmentCount,
                         IReadOnlyList<string>? environments)
    {
        if (!IoOperationKindNames.IsDefined(kind))
            ThrowUndefinedKind(kind);
        ArgumentNullException.ThrowIfNull(filePath);
        ArgumentOutOfRangeException.ThrowIfLessThan(endTimestamp, startTimestamp);
        ArgumentOutOfRangeException.ThrowIfNegative(bytes);
        ArgumentOutOfRangeException.ThrowIfNegative(transactionCount);
        ArgumentOutOfRangeException.ThrowIfLessThan(environmentCount, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(environmentCount, ushort.MaxValue);

        Metrics?.RecordIo(kind, endTimestamp - startTimestamp, bytes, failed, environmentCount);
        long sequence = TakeSequence();
        if (!TryClaim(sequence))
            return;
        Complete(sequence, kind, startTimestamp, endTimestamp - startTimestamp, bytes, filePath,
                 firstTransactionId, lastTransactionId, transactionCount, failed, environmentCount, environments);
    }

    /// <summary>
    /// The complete records in the ring, oldest first: with no writer active, exactly the last
    /// <see cref="Capacity"/> operations (less any <see cref="Dropped"/>). Records still being
    /// written are left out, never returned torn; records written while the snapshot is taken may
    /// be included; none is older than the last <see cref="Capacity"/> sequences at its start.
    /// </summary>
    public IoOperation[] Snapshot()
    {
        long end = Volatile.Read(ref _nextSequence);
        long oldestWanted = end - _slots.Length;
        var operations = new IoOperation[_slots.Length];
        int count = 0;
        bool ordered = true;
        // Every slot rather than only the sequences of the window: under heavy recording the
        // window's slots are overwritten before a reader reaches them, and the newer records there
        // are just as valid. Starting at the window's oldest slot keeps a quiet ring in order.
        for (long k = 0; k < _slots.Length; k++)
        {
            if (!TryRead(ref SlotFor(end + k), oldestWanted, out operations[count]))
                continue;
            if (count > 0 && operations[count].Sequence < operations[count - 1].Sequence)
                ordered = false;
            count++;
        }
        var snapshot = count == operations.Length ? operations : operations[..count];
        if (!ordered)
            snapshot.AsSpan().Sort(static (a, b) => a.Sequence.CompareTo(b.Sequence));
        return snapshot;
    }

    /// <summary>Per-kind counts, bytes and duration statistics over a fresh <see cref="Snapshot"/>.</summary>
    public IoStatsSummary Summarize() => IoStatsSummary.From(Snapshot());

    // The three steps of a record, separate so that tests can stop a writer between claiming a
    // slot and completing it, the state the collision handling exists for.

    /// <summary>Step 1: the record's sequence number.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal long TakeSequence() => Interlocked.Increment(ref _nextSequence) - 1;

    /// <summary>
    /// Step 2: marks the sequence's slot as being written. Fails, and counts the record as dropped,
    /// if another writer is writing the slot or it already holds a newer record.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryClaim(long sequence)
    {
        ref Slot slot = ref SlotFor(sequence);
        long current = Volatile.Read(ref slot.Version);
        long writing = WritingVersion(sequence);
        // Odd: another writer holds the slot. Above ours: a newer record is already there.
        // Failing the swap: another writer claimed the slot between the read and the swap. The
        // swap is a full fence, so none of the field writes that follow can be seen before it.
        if ((current & 1) == 0 && current < writing
            && Interlocked.CompareExchange(ref slot.Version, writing, current) == current)
            return true;
        Interlocked.Increment(ref _dropped);
        return false;
    }

    /// <summary>Step 3: fills the claimed slot and publishes it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Complete(long sequence, IoOperationKind kind, long startTimestamp, long elapsedTimestamp, long bytes, string filePath,
                           long firstTransactionId, long lastTransactionId, int transactionCount, bool failed, int environmentCount = 1,
                           IReadOnlyList<string>? environments = null)
    {
        ref Slot slot = ref SlotFor(sequence);
        slot.StartTimestamp = startTimestamp;
        slot.ElapsedTimestamp = elapsedTimestamp;
        slot.Bytes = bytes;
        slot.FirstTransactionId = firstTransactionId;
        slot.LastTransactionId = lastTransactionId;
        slot.FilePath = filePath;
        slot.TransactionCount = transactionCount;
        slot.Kind = kind;
        slot.Failed = failed;
        slot.EnvironmentCount = (ushort)environmentCount;
        slot.Environments = environments;
        // Release: a reader that sees the complete version sees every field above.
        Volatile.Write(ref slot.Version, CompleteVersion(sequence));
    }

    /// <summary>The wall-clock time of a Stopwatch timestamp, as snapshots report it.</summary>
    internal DateTime ToUtc(long timestamp) => _clock.ToUtc(timestamp);

    private bool TryRead(ref Slot slot, long oldestWanted, out IoOperation operation)
    {
        operation = default;
        // Acquire: the field reads below cannot move above this one.
        long version = Volatile.Read(ref slot.Version);
        if (version == 0 || (version & 1) != 0)
            return false;
        long sequence = SequenceOf(version);
        if (sequence < oldestWanted)
            return false; // left behind when the writer of a newer lap dropped its record
        long start = slot.StartTimestamp;
        long elapsed = slot.ElapsedTimestamp;
        long bytes = slot.Bytes;
        long firstTransactionId = slot.FirstTransactionId;
        long lastTransactionId = slot.LastTransactionId;
        string? filePath = slot.FilePath;
        int transactionCount = slot.TransactionCount;
        IoOperationKind kind = slot.Kind;
        bool failed = slot.Failed;
        int environmentCount = slot.EnvironmentCount;
        var environments = slot.Environments;
        // A full fence, not just an acquiring read: the field reads above must not move below the
        // re-check, which an acquire alone would allow.
        Interlocked.MemoryBarrier();
        // Versions only grow, so an unchanged one means no writer touched the slot meanwhile.
        if (Volatile.Read(ref slot.Version) != version)
            return false;
        operation = new IoOperation
        {
            Sequence = sequence, Kind = kind, StartUtc = _clock.ToUtc(start), Duration = IoClock.ToDuration(elapsed), Bytes = bytes,
            FilePath = filePath!, FirstTransactionId = firstTransactionId, LastTransactionId = lastTransactionId,
            TransactionCount = transactionCount, Failed = failed, EnvironmentCount = Math.Max(1, environmentCount),
            Environments = environments ?? [],
        };
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref Slot SlotFor(long sequence) => ref _slots[sequence & _mask];

    private static long WritingVersion(long sequence) => 2 * sequence + 1;

    private static long CompleteVersion(long sequence) => 2 * sequence + 2;

    private static long SequenceOf(long completeVersion) => (completeVersion >> 1) - 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowUndefinedKind(IoOperationKind kind)
        => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not an I/O operation kind.");

    /// <summary>
    /// One record. Version 0 means never written; otherwise 2s+1 while record s is being written
    /// and 2s+2 once it is complete.
    /// </summary>
    private struct Slot
    {
        public long Version;
        public long StartTimestamp;
        public long ElapsedTimestamp;
        public long Bytes;
        public long FirstTransactionId;
        public long LastTransactionId;
        public string? FilePath;
        public int TransactionCount;
        public IoOperationKind Kind;
        public bool Failed;
        // Fits the padding.
        public ushort EnvironmentCount;
        // Null unless a shared write named what it carried (one more reference: the slot is 72 bytes).
        public IReadOnlyList<string>? Environments;
    }
}
