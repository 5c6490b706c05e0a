using Microsoft.Extensions.Logging;

namespace Cairn.Diagnostics;

/// <summary>
/// Everything the engine logs, source-generated (no boxing, no formatting when the level is off).
/// Every event is logged under the category <c>Cairn.StorageEnvironment</c> (StorageEnvironment.LogCategory).
/// Event ids are stable and documented in docs/design.md ("Logging"): tools may filter on them.
/// </summary>
internal static partial class Log
{
    [LoggerMessage(EventId = 1000, Level = LogLevel.Information,
        Message = "Opened environment {Directory} at transaction {TransactionId} ({DataPages} data pages, {RecoveredTransactions} transactions recovered) in {ElapsedMs:F1} ms")]
    public static partial void EnvironmentOpened(ILogger logger, string directory, long transactionId, long dataPages, long recoveredTransactions, double elapsedMs);

    [LoggerMessage(EventId = 1001, Level = LogLevel.Information,
        Message = "Closed environment {Directory} at transaction {TransactionId}{How}")]
    public static partial void EnvironmentClosed(ILogger logger, string directory, long transactionId, string how);

    [LoggerMessage(EventId = 1002, Level = LogLevel.Warning,
        Message = "The header copy at offset {Offset} of {DataFile} is invalid ({Problem}); opened from the other copy (transaction {TransactionId}, journals from sequence {JournalSequence}) and rewrote the invalid one")]
    public static partial void HeaderCopyRepaired(ILogger logger, string dataFile, long offset, string problem, long transactionId, long journalSequence);

    [LoggerMessage(EventId = 1003, Level = LogLevel.Warning,
        Message = "{DataFile} ends in {Bytes} bytes past its last whole page at offset {Offset}, left by a growth a crash or a full disk interrupted; nothing references them, cut off")]
    public static partial void DataFileTrailingBytes(ILogger logger, string dataFile, long offset, long bytes);

    [LoggerMessage(EventId = 1100, Level = LogLevel.Information,
        Message = "Recovering {Directory}: the data file holds transactions up to {SyncedTransaction}; reading {JournalCount} journal(s) from {FirstJournal} at offset {Offset}")]
    public static partial void RecoveryStarting(ILogger logger, string directory, long syncedTransaction, int journalCount, string firstJournal, long offset);

    [LoggerMessage(EventId = 1101, Level = LogLevel.Information,
        Message = "Recovery: {Journal} done, {Transactions} transactions replayed so far ({Bytes} bytes read)")]
    public static partial void RecoveryProgress(ILogger logger, string journal, long transactions, long bytes);

    [LoggerMessage(EventId = 1102, Level = LogLevel.Information,
        Message = "Recovery replayed {Transactions} transactions ({FirstTransaction}..{LastTransaction}), {Bytes} journal bytes, {Pages} distinct page runs ({Spills} spills to the data file), in {ElapsedMs:F1} ms ({MegabytesPerSecond:F0} MB/s)")]
    public static partial void RecoveryCompleted(ILogger logger, long transactions, long firstTransaction, long lastTransaction, long bytes, long pages, int spills, double elapsedMs, double megabytesPerSecond);

    [LoggerMessage(EventId = 1103, Level = LogLevel.Warning,
        Message = "Journal {Journal} ends with an incomplete or stale entry at offset {Offset} ({Reason}); nothing after it belongs to a later transaction, so the log ends there: {DiscardedBytes} bytes were cut off and transactions up to {LastTransaction} were recovered")]
    public static partial void TornJournalTail(ILogger logger, string journal, long offset, string reason, long discardedBytes, long lastTransaction);

    [LoggerMessage(EventId = 1104, Level = LogLevel.Debug,
        Message = "Deleted {Count} journal(s) that the data file already covers")]
    public static partial void ObsoleteJournalsDeleted(ILogger logger, int count);

    [LoggerMessage(EventId = 1105, Level = LogLevel.Warning,
        Message = "Journal {Journal} ends with an incomplete entry at offset {Offset} ({Reason}); nothing after it belongs to a later transaction of this environment, so the log ends there and transactions up to {LastTransaction} were recovered, but the file has {Links} names (a journal shared with other environments): the torn tail was left in place, unchanged")]
    public static partial void TornSharedJournalTail(ILogger logger, string journal, long offset, string reason, long links, long lastTransaction);

    [LoggerMessage(EventId = 1106, Level = LogLevel.Debug,
        Message = "Recovery stages: reading thread: reading and validating entries {ReadMs:F1} ms, checking their page records {CheckMs:F1} ms, scanning past each journal's log end {TailScanMs:F1} ms, waiting for the applying thread {ReadWaitMs:F1} ms; applying thread: applying entries {ApplyMs:F1} ms, waiting for entries {ApplyWaitMs:F1} ms; then waiting for the apply to end {DrainMs:F1} ms, validating the rebuilt pages {ValidateMs:F1} ms")]
    public static partial void RecoveryStages(ILogger logger, double readMs, double checkMs, double tailScanMs, double readWaitMs, double applyMs,
        double applyWaitMs, double drainMs, double validateMs);

    [LoggerMessage(EventId = 1200, Level = LogLevel.Warning,
        Message = "Journal write of {Bytes} bytes to {Journal} took {ElapsedMs:F1} ms (transactions {FirstTransaction}..{LastTransaction})")]
    public static partial void SlowJournalWrite(ILogger logger, long bytes, string journal, double elapsedMs, long firstTransaction, long lastTransaction);

    [LoggerMessage(EventId = 1201, Level = LogLevel.Debug,
        Message = "Journal {Journal}: {Size} bytes, {How}")]
    public static partial void JournalCreated(ILogger logger, string journal, long size, string how);

    [LoggerMessage(EventId = 1202, Level = LogLevel.Warning,
        Message = "The file system of {Journal} refuses O_DIRECT: journal writes go through the page cache with O_DSYNC (still durable, slower)")]
    public static partial void JournalDirectIoFallback(ILogger logger, string journal);

    [LoggerMessage(EventId = 1203, Level = LogLevel.Warning,
        Message = "Journal {Journal} is covered by a sync but could not be deleted; it is tried again after the next sync")]
    public static partial void JournalNotDeleted(ILogger logger, Exception exception, string journal);

    [LoggerMessage(EventId = 1205, Level = LogLevel.Warning,
        Message = "Journal retention for shipping in {Directory} reached its bound of {BoundBytes} bytes: journals up to transaction {DroppedUpTo} were released before a consumer acknowledged them (acknowledged up to {Acknowledged}); a consumer behind them needs a new full backup")]
    public static partial void RetainedJournalsDropped(ILogger logger, string directory, long boundBytes, long droppedUpTo, long acknowledged);

    [LoggerMessage(EventId = 1700, Level = LogLevel.Information,
        Message = "Environment in {Directory} opened as a read-only replica at transaction {TransactionId}")]
    public static partial void ReplicaOpened(ILogger logger, string directory, long transactionId);

    [LoggerMessage(EventId = 1204, Level = LogLevel.Warning,
        Message = "Could not prepare spare journal {Journal} ({Size} bytes) in the background; the next journal switch creates its file on the commit path")]
    public static partial void JournalSpareNotPrepared(ILogger logger, Exception exception, string journal, long size);

    [LoggerMessage(EventId = 1300, Level = LogLevel.Information,
        Message = "Data-file writes use {Backend}")]
    public static partial void DataFileWriterBackend(ILogger logger, string backend);

    [LoggerMessage(EventId = 1301, Level = LogLevel.Warning,
        Message = "Data-file writes fall back to {Backend}: {Reason}")]
    public static partial void DataFileWriterFallback(ILogger logger, string backend, string reason);

    [LoggerMessage(EventId = 1302, Level = LogLevel.Information,
        Message = "Durability probe of {Directory}: file system type 0x{FileSystemType:x}, O_DIRECT {DirectIo}, {FreeBytes} bytes free")]
    public static partial void DurabilityProbe(ILogger logger, string directory, long fileSystemType, bool directIo, long freeBytes);

    [LoggerMessage(EventId = 1303, Level = LogLevel.Warning,
        Message = "{Directory} is on a volatile file system (tmpfs or ramfs): fsync and O_DIRECT prove nothing there, and committed data does not survive a reboot")]
    public static partial void VolatileFileSystem(ILogger logger, string directory);

    [LoggerMessage(EventId = 1400, Level = LogLevel.Warning,
        Message = "Flushing to {DataFile} is postponed: {Reason}. Commits continue in the journal; the flush is retried")]
    public static partial void FlushPostponed(ILogger logger, string dataFile, string reason);

    [LoggerMessage(EventId = 1401, Level = LogLevel.Error,
        Message = "Environment {Directory} failed while {Operation}: no more write transactions until it is reopened")]
    public static partial void EnvironmentFailed(ILogger logger, Exception exception, string directory, string operation);

    [LoggerMessage(EventId = 1402, Level = LogLevel.Warning,
        Message = "A write transaction waits for scratch memory: {BytesInUse} bytes in use, limit {Limit}")]
    public static partial void ScratchPressure(ILogger logger, long bytesInUse, long limit);

    [LoggerMessage(EventId = 1403, Level = LogLevel.Warning,
        Message = "A commit failed because the disk is full ({Journal}): the transaction was rolled back, earlier commits are intact, and writes continue once space is available")]
    public static partial void CommitFailedDiskFull(ILogger logger, Exception exception, string journal);

    [LoggerMessage(EventId = 1500, Level = LogLevel.Debug,
        Message = "Synced the data file up to transaction {TransactionId} in {ElapsedMs:F1} ms; {DeletedJournals} journal(s) deleted, {RecycledJournals} kept for reuse")]
    public static partial void DataFileSynced(ILogger logger, long transactionId, double elapsedMs, int deletedJournals, int recycledJournals);

    [LoggerMessage(EventId = 1600, Level = LogLevel.Debug,
        Message = "Journal {Link} linked to the journal group root's file {RootJournal}")]
    public static partial void JournalLinked(ILogger logger, string link, string rootJournal);

    [LoggerMessage(EventId = 1601, Level = LogLevel.Warning,
        Message = "{Directory} is not on the file system of its journal group root's journal {RootJournal}: it writes its own journal from now on")]
    public static partial void SharingStoppedCrossDevice(ILogger logger, string directory, string rootJournal);

    [LoggerMessage(EventId = 1602, Level = LogLevel.Warning,
        Message = "The journal group root's file {RootJournal} is at its link limit: {Directory} writes its own journal until the root moves to its next file")]
    public static partial void SharingSkippedLinkLimit(ILogger logger, string directory, string rootJournal);

    [LoggerMessage(EventId = 1603, Level = LogLevel.Warning,
        Message = "{Directory} could not link the journal group root's file {RootJournal}: it writes its own journal until the root moves to its next file")]
    public static partial void SharingLinkFailed(ILogger logger, Exception exception, string directory, string rootJournal);

    [LoggerMessage(EventId = 1604, Level = LogLevel.Information,
        Message = "The journal group root of {Directory} was closed: the branch writes its own journal from now on")]
    public static partial void SharingStoppedRootClosed(ILogger logger, string directory);

    [LoggerMessage(EventId = 1605, Level = LogLevel.Information,
        Message = "Opened {Directory} as a branch of the journal group of {Root}")]
    public static partial void BranchOpened(ILogger logger, string directory, string root);
}
