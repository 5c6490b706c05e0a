using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Shipping;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    // Set on a replica (OpenReplica): its only way to change. Null on an ordinary environment.
    private ReplicaApplier? _replica;

    /// <summary>
    /// Opens a copy of an environment (a full backup: same environment id) as a read-only replica. Its own journals are
    /// replayed first, as at any open, so after a crash it resumes at <see cref="LastAppliedTransactionId"/>. Readers work
    /// as on any environment; <see cref="BeginWrite()"/>, <see cref="Write{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>,
    /// <see cref="WriteAsync{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>, <see cref="OpenBranch"/>
    /// and the other writes throw <see cref="ReplicaReadOnlyException"/>. It changes only through <see cref="Apply"/> and
    /// <see cref="ApplyShippedEntries"/>. Promotion: dispose it and open the directory with <see cref="Open(StorageOptions)"/>;
    /// it is then an ordinary environment (the primary's copy as of its last applied transaction) and must not receive
    /// entries of the old primary any more.
    /// </summary>
    /// <exception cref="EnvironmentLockedException">Another process (or instance) has it open.</exception>
    public static StorageEnvironment OpenReplica(ReplicaOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var environment = Open(options.Storage);
        environment._committer.RefuseLocalCommits(environment.DirectoryPath);
        environment._replica = new ReplicaApplier(environment._states, environment._scratch, environment._journal,
            environment.EnvironmentId, environment._dataFile.FilePath);
        Log.ReplicaOpened(environment._logger, environment.DirectoryPath, environment.LastCommittedTransactionId);
        return environment;
    }

    /// <summary>Whether this environment was opened as a replica (<see cref="OpenReplica"/>).</summary>
    public bool IsReplica => _replica is not null;

    /// <summary>The last transaction this environment holds: on a replica, the last shipped entry applied.</summary>
    public long LastAppliedTransactionId => LastCommittedTransactionId;

    /// <summary>
    /// On a replica: applies one shipped entry (from <see cref="ReadJournalEntries"/> of its primary, or received bytes) as
    /// its next transaction. It must be this environment's, of exactly <see cref="LastAppliedTransactionId"/> + 1, and
    /// validate; it is then durable in the replica's journal before readers see it, whole. Refused entries change nothing.
    /// </summary>
    /// <exception cref="ShippedEntryOutOfOrderException">A gap, or an entry applied already.</exception>
    /// <exception cref="ShippedEntryFromOtherEnvironmentException">Another environment's entry.</exception>
    /// <exception cref="ShippedEntryDamagedException">The entry does not validate.</exception>
    /// <exception cref="InvalidOperationException">This environment is not a replica.</exception>
    /// <exception cref="EnvironmentFailedException">Writing the replica's journal failed; reopen it.</exception>
    public void Apply(ShippedJournalEntry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ApplyFrom([entry], _ => "an entry");
    }

    /// <summary>
    /// On a replica: applies <paramref name="entries"/> in order, each as <see cref="Apply"/> does, with one durable journal
    /// write for all of them (a replica keeps up with a primary that commits through many callers this way); readers still
    /// see each transaction whole, one after another. Returns how many were applied. A refused entry is thrown after
    /// those before it are applied; it and those after it change nothing.
    /// </summary>
    /// <exception cref="ShippedEntryRefusedException">An entry is damaged, out of order, or of another environment.</exception>
    /// <exception cref="InvalidOperationException">This environment is not a replica.</exception>
    public int ApplyBatch(IReadOnlyList<ShippedJournalEntry> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        int applied = 0;
        var batch = new List<ShippedJournalEntry>();
        long bytes = 0;
        for (int i = 0; i < entries.Count; i++)
        {
            var entry = entries[i] ?? throw new ArgumentException($"Entry {i} is null.", nameof(entries));
            if (batch.Count > 0 && (bytes + entry.Data.Length > ReplicaApplier.MaxBatchBytes || batch.Count == Journal.Files.WriteAheadJournal.MaxBuffersPerWrite))
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
    /// On a replica: applies every entry of a shipped-entries stream (an incremental backup, or a shipping loop's batch) in
    /// order, as <see cref="ApplyBatch"/> does. Stops at the first refused entry (the exception names its frame's offset);
    /// those before it stay applied. Returns how many were applied.
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
                if (batch.Count > 0 && (bytes + entry.Data.Length > ReplicaApplier.MaxBatchBytes || batch.Count == Journal.Files.WriteAheadJournal.MaxBuffersPerWrite))
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

    private int ApplyFrom(IReadOnlyList<ShippedJournalEntry> entries, Func<int, string> describe)
    {
        ThrowIfDisposed();
        var replica = _replica ?? throw new InvalidOperationException($"The environment in '{DirectoryPath}' is not a replica; open it with StorageEnvironment.OpenReplica.");
        _failure.ThrowIfFailed();
        if (!_committer.Writer.TryAcquire(_options.WriteTransactionTimeout))
            throw new WriteTransactionTimeoutException(_options.WriteTransactionTimeout);
        long started = Stopwatch.GetTimestamp();
        var state = _committer.Writer.StartWriting();
        int applied;
        try
        {
            applied = replica.Apply(state, entries, describe);
        }
        catch (JournalWriteFatalException e)
        {
            throw _failure.Fail("writing the replica's journal", e.InnerException ?? e);
        }
        finally
        {
            _committer.Writer.StopWriting();
        }
        _metrics.RecordDurableCommit(started);
        OnPublished();
        return applied;
    }

    private void ThrowIfReplica(string operation)
    {
        if (_replica is not null)
            throw new ReplicaReadOnlyException(DirectoryPath, operation);
    }
}
