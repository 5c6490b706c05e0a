using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Shipping;

namespace Cairn;

/// <summary>
/// A read-only replica of a primary <see cref="StorageEnvironment"/>: a copy of it (a full backup: same environment id)
/// that changes only by applying the primary's shipped journal entries (<see cref="Apply"/>, <see cref="ApplyBatch"/>,
/// <see cref="ApplyShippedEntries"/>). It has no write member: nothing but the primary's entries can move it, so it never
/// takes a transaction id of its own. Readers work as on any environment. <see cref="Promote"/> turns it into a primary.
/// </summary>
/// <remarks>
/// It runs an environment engine of its own (recovery at open, journal, flusher, readers), which it never hands out: its
/// own journals are replayed first, as at any open, so after a crash it resumes at <see cref="LastAppliedTransactionId"/>.
/// </remarks>
public sealed class ReplicaEnvironment : IDisposable
{
    private readonly StorageEnvironment _engine;
    private readonly ReplicaApplier _applier;
    private readonly ReplicaOptions _options;
    // Set once Promote handed the directory over to a primary: every member then says so.
    private volatile bool _promoted;
    private int _applierReleased;

    private ReplicaEnvironment(StorageEnvironment engine, ReplicaOptions options)
    {
        _engine = engine;
        _options = options;
        var parts = engine.Parts;
        // A second fence under the missing write members: the engine's own commit path refuses local transactions too.
        parts.Committer.RefuseLocalCommits(engine.DirectoryPath);
        _applier = new ReplicaApplier(parts.States, parts.Scratch, parts.Journal, engine.EnvironmentId, parts.DataFile.FilePath);
    }

    /// <summary>
    /// Opens a copy of an environment (a full backup: same environment id) as a replica. Its own journals are replayed
    /// first, as at any open, so after a crash it resumes at <see cref="LastAppliedTransactionId"/>.
    /// </summary>
    /// <exception cref="EnvironmentLockedException">Another process (or instance) has it open.</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged where recovery needs it (the message names the file and offset).</exception>
    /// <exception cref="StorageFormatException">The data file is not a Cairn data file, or both header copies are damaged.</exception>
    public static ReplicaEnvironment Open(ReplicaOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var engine = StorageEnvironment.Open(options.Storage);
        var replica = new ReplicaEnvironment(engine, options);
        Log.ReplicaOpened(engine.Parts.Logger, engine.DirectoryPath, engine.LastCommittedTransactionId);
        return replica;
    }

    /// <summary>The replica's directory.</summary>
    public string DirectoryPath => _options.Storage.DirectoryPath;

    /// <summary>The environment's identity: its primary's.</summary>
    public Guid EnvironmentId => _engine.EnvironmentId;

    /// <summary>The last shipped entry applied: the last transaction this replica holds.</summary>
    public long LastAppliedTransactionId => Engine.LastCommittedTransactionId;

    /// <summary>The last transaction whose pages are all in the replica's data file and synced.</summary>
    public long LastSyncedTransactionId => Engine.LastSyncedTransactionId;

    /// <summary>Every journal write, data-file flush and sync of the replica (see <see cref="Diagnostics.IoStats"/>).</summary>
    public IoStats IoStats => _engine.IoStats;

    /// <summary>True once an I/O failure (writing its journal) has stopped the replica from applying entries.</summary>
    public bool HasFailed => _engine.HasFailed;

    /// <summary>Why the replica stopped applying entries, or null while <see cref="HasFailed"/> is false.</summary>
    public EnvironmentFailedException? Failure => _engine.Failure;

    /// <summary>Starts a read transaction on the last applied transaction. It never blocks and is never blocked.</summary>
    /// <exception cref="ObjectDisposedException">The replica has been disposed or promoted.</exception>
    public ReadTransaction BeginRead() => Engine.BeginRead();

    /// <summary>As <see cref="BeginRead"/>, as a struct that allocates nothing.</summary>
    /// <exception cref="ObjectDisposedException">The replica has been disposed or promoted.</exception>
    public ReadSnapshot BeginReadSnapshot() => Engine.BeginReadSnapshot();

    /// <summary>The handle of the tree named <paramref name="name"/> (see <see cref="StorageEnvironment.GetTreeHandle"/>).</summary>
    public TreeHandle GetTreeHandle(string name) => Engine.GetTreeHandle(name);

    /// <summary>Describes the replica as of its last applied transaction (see <see cref="StorageEnvironment.GetInfo"/>).</summary>
    public EnvironmentInfo GetInfo() => Engine.GetInfo();

    /// <summary>
    /// Checks the whole replica as of its last applied transaction, as <see cref="StorageEnvironment.Verify"/> does,
    /// against the free-space map its applied entries carry. Throws <see cref="VerificationException"/> listing every problem.
    /// </summary>
    public VerificationReport Verify() => Engine.VerifyWith(loadFreeSpace: true);

    /// <summary>
    /// Applies one shipped entry (from <see cref="EnvironmentShipping.ReadJournalEntries"/> of its primary, or received
    /// bytes) as the replica's next transaction. It must be this environment's, of exactly
    /// <see cref="LastAppliedTransactionId"/> + 1, and validate; it is then durable in the replica's journal before readers
    /// see it, whole. Refused entries change nothing.
    /// </summary>
    /// <exception cref="ShippedEntryOutOfOrderException">A gap, or an entry applied already.</exception>
    /// <exception cref="ShippedEntryFromOtherEnvironmentException">Another environment's entry.</exception>
    /// <exception cref="ShippedEntryDamagedException">The entry does not validate.</exception>
    /// <exception cref="EnvironmentFailedException">Writing the replica's journal failed; reopen it.</exception>
    /// <exception cref="ObjectDisposedException">The replica has been disposed or promoted.</exception>
    public void Apply(ShippedJournalEntry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ApplyFrom([entry], _ => "an entry");
    }

    /// <summary>
    /// Applies <paramref name="entries"/> in order, each as <see cref="Apply"/> does, with one durable journal write for
    /// all of them (a replica keeps up with a primary that commits through many callers this way); readers still see each
    /// transaction whole, one after another. Returns how many were applied. A refused entry is thrown after those before
    /// it are applied; it and those after it change nothing.
    /// </summary>
    /// <exception cref="ShippedEntryRefusedException">An entry is damaged, out of order, or of another environment.</exception>
    public int ApplyBatch(IReadOnlyList<ShippedJournalEntry> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        int applied = 0;
        var batch = new List<ShippedJournalEntry>();
        long bytes = 0;
        for (int i = 0; i < entries.Count; i++)
        {
            var entry = entries[i] ?? throw new ArgumentException($"Entry {i} is null.", nameof(entries));
            if (batch.Count > 0 && BatchFull(batch.Count, bytes + entry.Data.Length))
            {
                applied += ApplyFrom(batch, k => $"entry {applied + k} of the batch");
                batch.Clear();
                bytes = 0;
            }
            batch.Add(entry);
            bytes += entry.Data.Length;
        }
        if (batch.Count > 0)
            applied += ApplyFrom(batch, k => $"entry {applied + k} of the batch");
        return applied;
    }

    /// <summary>
    /// Applies every entry of a shipped-entries stream (an incremental backup, or a shipping loop's batch) in order, as
    /// <see cref="ApplyBatch"/> does. Stops at the first refused entry (the exception names its frame's offset); those
    /// before it stay applied. Returns how many were applied.
    /// </summary>
    /// <exception cref="ShippedEntryRefusedException">An entry or frame is damaged, out of order, or of another environment.</exception>
    public long ApplyShippedEntries(Stream source)
    {
        ArgumentNullException.ThrowIfNull(source);
        long applied = 0;
        var batch = new List<(ShippedJournalEntry Entry, long Offset)>();
        long bytes = 0;
        try
        {
            foreach (var (entry, offset) in ShippedEntryStream.ReadWithOffsets(source, "the shipped-entries stream"))
            {
                if (batch.Count > 0 && BatchFull(batch.Count, bytes + entry.Data.Length))
                    Flush();
                batch.Add((entry, offset));
                bytes += entry.Data.Length;
            }
            Flush();
        }
        catch (ShippedEntryDamagedException e) when (e.LastAppliedTransactionId < 0)
        {
            Flush(); // what was read intact before the damage is applied, as it would have been entry by entry
            throw new ShippedEntryDamagedException(e.EntrySource, LastAppliedTransactionId, e.TransactionId, e.Reason);
        }
        return applied;

        void Flush()
        {
            if (batch.Count == 0)
                return;
            var entries = batch.Select(b => b.Entry).ToList();
            var offsets = batch.Select(b => b.Offset).ToList();
            batch.Clear();
            bytes = 0;
            applied += ApplyFrom(entries, k => $"the frame at offset {offsets[k]} of the shipped-entries stream");
        }
    }

    /// <summary>
    /// Makes this replica a primary: closes it cleanly (every applied transaction flushed and synced) and opens its directory
    /// as an ordinary <see cref="StorageEnvironment"/>, the primary's copy as of <see cref="LastAppliedTransactionId"/>, with
    /// the replica's options. This object is unusable afterwards (<see cref="ObjectDisposedException"/>); the new primary
    /// must not receive entries of the old primary any more (its own commits take the same transaction ids).
    /// </summary>
    /// <exception cref="LiveTransactionsException">Read transactions of the replica are still open; it stays a replica.</exception>
    /// <exception cref="ObjectDisposedException">The replica has been disposed or promoted.</exception>
    public StorageEnvironment Promote()
    {
        Dispose(promoting: true);
        return StorageEnvironment.Open(_options.Storage);
    }

    /// <summary>Closes the replica as <see cref="StorageEnvironment.Dispose"/> closes an environment (a no-op once promoted).</summary>
    public void Dispose() => Dispose(promoting: false);

    private void Dispose(bool promoting)
    {
        if (promoting)
        {
            ThrowIfPromoted();
            _engine.ThrowIfDisposed();
        }
        else if (_promoted)
        {
            return;
        }
        _engine.Dispose(); // throws, keeping the replica open, while transactions are open
        ReleaseApplier();
        if (promoting)
            _promoted = true;
    }

    /// <summary>What only tests may do to a replica (the pattern of <see cref="StorageEnvironment.ForTestingPurposesOnly"/>).</summary>
    internal TestHooks ForTestingPurposesOnly() => new(this);

    internal sealed class TestHooks(ReplicaEnvironment replica)
    {
        /// <summary>Closes every file as a killed process would leave them (see <see cref="EnvironmentTestHooks.SimulateProcessCrash"/>).</summary>
        public void SimulateProcessCrash()
        {
            replica._engine.ForTestingPurposesOnly().SimulateProcessCrash();
            replica.ReleaseApplier();
        }
    }

    private void ReleaseApplier()
    {
        if (Interlocked.Exchange(ref _applierReleased, 1) == 0)
            _applier.Dispose();
    }

    /// <summary>The engine, once the replica is known not to be promoted (disposal the engine checks itself); backups copy it.</summary>
    internal StorageEnvironment Engine
    {
        get
        {
            ThrowIfPromoted();
            return _engine;
        }
    }

    private void ThrowIfPromoted()
    {
        if (_promoted)
            throw new ObjectDisposedException(nameof(ReplicaEnvironment),
                $"The replica in '{DirectoryPath}' was promoted to a primary: use the StorageEnvironment Promote returned.");
    }

    private static bool BatchFull(int entries, long bytes)
        => bytes > ReplicaApplier.MaxBatchBytes || entries == WriteAheadJournal.MaxBuffersPerWrite;

    /// <summary>Applies <paramref name="entries"/> under the engine's write lock, as its one writer.</summary>
    private int ApplyFrom(IReadOnlyList<ShippedJournalEntry> entries, Func<int, string> describe)
    {
        var engine = Engine;
        engine.ThrowIfDisposed();
        var parts = engine.Parts;
        parts.Failure.ThrowIfFailed();
        var timeout = parts.Options.WriteTransactionTimeout;
        if (!parts.Committer.Writer.TryAcquire(timeout))
            throw new WriteTransactionTimeoutException(timeout);
        long started = Stopwatch.GetTimestamp();
        var state = parts.Committer.Writer.StartWriting();
        int applied;
        try
        {
            applied = _applier.Apply(state, entries, describe);
        }
        catch (JournalWriteFatalException e)
        {
            throw parts.Failure.Fail("writing the replica's journal", e.InnerException ?? e);
        }
        finally
        {
            parts.Committer.Writer.StopWriting();
        }
        parts.Metrics.RecordDurableCommit(started);
        engine.OnPublished();
        return applied;
    }
}
