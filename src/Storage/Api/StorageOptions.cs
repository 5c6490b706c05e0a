using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;

namespace Cairn;

/// <summary>
/// How to open an environment. Only <see cref="DirectoryPath"/> is required. Each option states its default and
/// unit; docs/options.md lists them all. Bindable from configuration as it is (every option is an
/// <c>init</c> property, <see cref="StorageOptions()"/> the binder's way in), and a record, so a host or a tool
/// derives a variant with <c>with { ... }</c> instead of copying the options one by one.
/// </summary>
public sealed record StorageOptions
{
    /// <summary>Options for the environment in <paramref name="directoryPath"/>, every other setting at its default.</summary>
    /// <param name="directoryPath">The environment's directory; created on open if missing. Use a real disk: on tmpfs nothing is durable.</param>
    /// <exception cref="ArgumentException"><paramref name="directoryPath"/> is null or empty.</exception>
    [SetsRequiredMembers]
    public StorageOptions(string directoryPath)
    {
        ArgumentException.ThrowIfNullOrEmpty(directoryPath);
        DirectoryPath = directoryPath;
    }

    /// <summary>
    /// Options whose <see cref="DirectoryPath"/> an object initializer (or configuration binding) sets; every other
    /// setting at its default. An empty path fails at <see cref="Validate"/> and at open.
    /// </summary>
    public StorageOptions()
    {
    }

    /// <summary>
    /// The environment's directory; created if missing. Holds <c>cairn.data</c> and <c>Journals/</c>. Use a real
    /// disk: on tmpfs nothing is durable. Default: none; required.
    /// </summary>
    public required string DirectoryPath { get; init; }

    /// <summary>
    /// The environment's name in its metrics (the tag <see cref="Diagnostics.CairnMetrics.EnvironmentTag"/>) and logs.
    /// Default: null, meaning the full path of <see cref="DirectoryPath"/>.
    /// </summary>
    public string? Name { get; init; }

    /// <summary>
    /// Where the environment's meter comes from (a host's <see cref="IMeterFactory"/>, so its metrics live and
    /// die with the host's container). Default: null, meaning one process-wide meter named
    /// <see cref="Diagnostics.CairnMetrics.MeterName"/>, shared by every environment opened without a factory.
    /// An object, not configuration text: a host supplies it from its container.
    /// </summary>
    public IMeterFactory? MeterFactory { get; init; }

    /// <summary>
    /// Where the environment logs (open, recovery, torn journal tails, slow writes, fallbacks). Default: null,
    /// nowhere. An object, not configuration text: a host supplies it from its container.
    /// </summary>
    public ILoggerFactory? LoggerFactory { get; init; }

    /// <summary>
    /// How long <see cref="StorageEnvironment.Open(StorageOptions)"/> waits for another holder of the environment's lock to let
    /// go before it throws <see cref="EnvironmentLockedException"/>. Short, but not zero: after a process is
    /// killed, the kernel may hold its files (and lock) for a moment while it tears down its io_uring.
    /// Default: 2 s. At least zero.
    /// </summary>
    public TimeSpan LockWaitTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>
    /// How <see cref="WriteTransaction.Commit()"/> commits: <see cref="CommitMode.Durable"/> (durable when it
    /// returns) or <see cref="CommitMode.Lazy"/> (published at once, written within
    /// <see cref="LazyCommitMaxDelay"/>). <see cref="WriteTransaction.Commit(CommitMode)"/> chooses per
    /// transaction. Merged writes (<c>WriteAsync</c>) are always durable. Default: <see cref="CommitMode.Durable"/>.
    /// </summary>
    public CommitMode CommitMode { get; init; } = CommitMode.Durable;

    /// <summary>
    /// The longest a lazily committed transaction waits for its journal write: a crash loses at most about
    /// this much of the newest lazy commits (and never an older one than a kept one). A durable commit,
    /// <see cref="StorageEnvironment.FlushJournal"/>, a checkpoint and the close write them sooner.
    /// Default: 100 ms. Positive.
    /// </summary>
    public TimeSpan LazyCommitMaxDelay { get; init; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Bytes of lazily committed journal entries past which the committing thread writes them at once (one
    /// write): the bound on the journal memory lazy commits hold, and the largest write they make.
    /// Default: 8 MiB. Unit: bytes; positive.
    /// </summary>
    public long LazyCommitMaxBytes { get; init; } = 8L << 20;

    /// <summary>
    /// How long <see cref="StorageEnvironment.BeginWrite()"/> waits for the open write transaction to finish.
    /// Default: 30 s. At least zero, or <see cref="Timeout.InfiniteTimeSpan"/>.
    /// </summary>
    public TimeSpan WriteTransactionTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Committed page versions held in scratch memory past which the background flusher writes the flushable
    /// ones to the data file (those no reader can still need the previous version of). Larger means a page
    /// rewritten by many commits is copied to the data file fewer times: a random fill of 3,000,000 keys copied
    /// 13 GB with 256 MiB and 1.6 GB with 1 GiB (docs/benchmarks.md, "Fills"). Keep it below
    /// <see cref="MaxScratchBytes"/> (half of it by default): past that limit writers wait while the flusher frees memory.
    /// Default: 1 GiB. Unit: bytes; positive.
    /// </summary>
    public long FlushThresholdBytes { get; init; } = 1L << 30;

    /// <summary>
    /// How long a committed page version waits in scratch memory before the flusher writes it anyway, if that flush is
    /// worth its bytes: it writes at most 16 MiB, or no more than the journal written since the last flush, or no commit
    /// came for this long. Otherwise (a random fill, where every leaf is dirty again within seconds) the flush waits for
    /// one of those, for <see cref="FlushThresholdBytes"/>, <see cref="MaxRecoveryJournalBytes"/> or the journals'
    /// budget, and at most until the version has waited <see cref="SyncInterval"/> (or this delay, if longer).
    /// Default: 5 s. At least zero.
    /// </summary>
    public TimeSpan MaxFlushDelay { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// The longest flushed data stays unsynced: after a flush the data file is synced (and the journals it
    /// covers deleted) once this much time has passed since the last sync, or sooner when the journals kept
    /// reach twice <see cref="MaxJournalFileBytes"/>. Every sync writes each page dirtied since the previous one, so
    /// a shorter interval writes a page rewritten across intervals more often; a longer one leaves more journal
    /// to replay after a crash (bounded by the same twice <see cref="MaxJournalFileBytes"/>). Default: 30 s. Positive.
    /// </summary>
    public TimeSpan SyncInterval { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The recovery objective: journal bytes a crash may leave to replay (as SQL Server's target recovery time, in
    /// bytes, which the engine can count). Once the journal written since the last sync passes it, the flusher flushes
    /// and syncs at once, whatever <see cref="FlushThresholdBytes"/> and <see cref="SyncInterval"/> say; the bound is
    /// overrun only by what commits while that flush and sync run. With the default, an open after a crash at the
    /// worst moment replays at most about 256 MiB (docs/site/guide/failures-and-recovery.md gives the open time measured). Lower means faster
    /// opens after a crash and more frequent syncs (a page rewritten across syncs is written again).
    /// Default: 256 MiB. Unit: bytes; positive.
    /// </summary>
    public long MaxRecoveryJournalBytes { get; init; } = 256L << 20;

    /// <summary>
    /// Scratch memory (modified and committed-but-unflushed page versions) past which a new write transaction
    /// waits for the flusher, for at most <see cref="ScratchWaitTimeout"/>. Bounds memory when commits outrun
    /// the disk or a long-lived reader pins old versions. Default: 2 GiB. Unit: bytes; positive.
    /// </summary>
    public long MaxScratchBytes { get; init; } = 2L << 30;

    /// <summary>
    /// How long a write transaction waits for scratch memory below <see cref="MaxScratchBytes"/> before it throws.
    /// Default: 60 s. At least zero.
    /// </summary>
    public TimeSpan ScratchWaitTimeout { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>
    /// Size of the first journal file; later ones grow when files fill quickly. Default: 1 MiB. Unit: bytes; a
    /// positive multiple of 4 KiB.
    /// </summary>
    public long InitialJournalFileBytes { get; init; } = 1L << 20;

    /// <summary>
    /// Largest journal file, except that a transaction larger than this gets a file of exactly its size.
    /// Default: 256 MiB. Unit: bytes; a multiple of 4 KiB, at least <see cref="InitialJournalFileBytes"/>.
    /// </summary>
    public long MaxJournalFileBytes { get; init; } = 256L << 20;

    /// <summary>A journal write slower than this is logged as a warning. Default: 500 ms. At least zero.</summary>
    public TimeSpan SlowJournalWriteThreshold { get; init; } = TimeSpan.FromMilliseconds(500);

    /// <summary>
    /// How many of the most recent I/O operations <see cref="StorageEnvironment.IoStats"/> keeps. Default: 4096.
    /// Unit: operations; a power of two, at least 16.
    /// </summary>
    public int IoStatsCapacity { get; init; } = 4096;

    /// <summary>
    /// Operations <see cref="StorageEnvironment.WriteAsync{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>
    /// may have queued before callers wait for room. Default: 16384. Unit: operations; positive.
    /// </summary>
    public int MergerMaxQueuedOperations { get; init; } = 16384;

    /// <summary>
    /// How long a caller waits for room in a full merger queue before its task fails with <see cref="MergerQueueFullException"/>.
    /// Default: 30 s. At least zero, or <see cref="Timeout.InfiniteTimeSpan"/>.
    /// </summary>
    public TimeSpan MergerQueueTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// A merged transaction takes no more operations once its modified pages reach this size; it commits next.
    /// Default: 32 MiB. Unit: bytes; positive.
    /// </summary>
    public long MergerMaxTransactionBytes { get; init; } = 32L << 20;

    /// <summary>
    /// A merged transaction takes no more operations after executing for this long; it commits next.
    /// Default: 20 ms. Positive.
    /// </summary>
    public TimeSpan MergerMaxBatchDuration { get; init; } = TimeSpan.FromMilliseconds(20);

    /// <summary>
    /// When a merged transaction's journal write returns, the merger waits up to this long (while the queue
    /// is empty) for the callers it just released to send their next operations, so they join the next
    /// batch instead of the one after. After a wait in which none came back, the next one is skipped unless
    /// an operation is already queued. Zero commits at once. The default is about one journal write on the
    /// disks measured (docs/decisions.md, merger 15). Default: 250 µs. At least zero.
    /// </summary>
    public TimeSpan MergerReturnGrace { get; init; } = TimeSpan.FromMicroseconds(250);

    /// <summary>
    /// For a journal group's root (<see cref="StorageEnvironment.OpenBranch"/>): at most this many environments'
    /// entries (each environment's: every commit it had waiting) go into one shared journal write, so a commit never
    /// waits behind an unbounded one. Default: 64. Unit: entries; 1 to 1024 (one vectored write's buffers).
    /// </summary>
    public int JournalGroupMaxWriteEntries { get; init; } = 64;

    /// <summary>
    /// For a journal group's root: at most this many bytes go into one shared journal write (a single larger
    /// entry goes alone). Default: 8 MiB. Unit: bytes; positive.
    /// </summary>
    public long JournalGroupMaxWriteBytes { get; init; } = 8L << 20;

    /// <summary>
    /// For a journal group's root: how many shared journal writes may be on the device at once, at most. The next
    /// write is sent while earlier ones are in flight; each is acknowledged only once every write before it in
    /// the file is durable. The group learns the number it uses from the device, from 1 up to this: more while a
    /// write takes about as long with one more beside it, fewer when writes queue (docs/design.md, "Journal groups").
    /// 1 writes one at a time. Default: 4 (measured against 2 and 8 on a virtio disk, uncapped and under a 3,000
    /// write-IOPS cap: docs/benchmarks.md, "Shared journals: writes in flight"). Unit: writes; 1 to 16.
    /// </summary>
    public int JournalGroupMaxInFlightWrites { get; init; } = 4;

    /// <summary>
    /// Journal entries whose page records reach this many bytes are compressed (one LZ4 block) when that
    /// saves at least one 4 KiB block of the entry. It pays where the disk's
    /// durable write bandwidth is below what LZ4 compresses (about 0.3-1 GB/s for journal payloads on
    /// one core) times the fraction it saves: slow or throttled volumes and compressible values; on a fast
    /// local disk writing the bytes is quicker (docs/decisions.md, "LZ4 journal compression"). 256 KiB
    /// is a sensible value there: smaller entries cost a write's latency whatever their size. Recovery
    /// reads compressed entries whatever this setting says, so it can be changed at any open.
    /// Default: null, never compress. Unit: bytes; at least zero.
    /// </summary>
    public int? JournalCompressionThresholdBytes { get; init; }

    /// <summary>
    /// Journal shipping (replicas, incremental backups): keeps journals past the data-file sync until a consumer
    /// acknowledges their transactions (<see cref="EnvironmentShipping.AcknowledgeShipped"/>), so
    /// <see cref="EnvironmentShipping.ReadJournalEntries"/> can still hand them out. At most this many bytes of synced
    /// journals are kept for the consumer: past it the oldest go anyway (logged, event 1205; writers never wait and the
    /// environment never fails for a slow consumer), and a consumer asking for entries in them gets
    /// <see cref="JournalEntriesNotRetainedException"/> and needs a new full backup. The retention survives a restart
    /// (kept journals are kept again at the next open, never replayed). Default: null, journals go at the sync.
    /// Unit: bytes; positive.
    /// </summary>
    public long? JournalRetentionBytes { get; init; }

    /// <summary>
    /// Checks every value now, as <see cref="StorageEnvironment.Open(StorageOptions)"/> will: for a host that wants a bad
    /// setting to fail at start (hosting's options validation), before anything is opened.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">A value is out of range; the exception's parameter name is the option's name.</exception>
    /// <exception cref="ArgumentException"><see cref="DirectoryPath"/> is null or empty.</exception>
    public void Validate() => StorageOptionsValidation.Validate(this);

    /// <summary>
    /// Whether the background thread prepares the next journal file ahead of the switch (always, outside
    /// tests; a test turns it off to make the commit path create the file itself).
    /// </summary>
    internal bool PrepareSpareJournals { get; init; } = true;
}
