using Cairn.Backups;
using Cairn.Commit;
using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.Flushing;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn;

/// <summary>
/// The components of an open <see cref="StorageEnvironment"/> that the roles kept out of it work through:
/// <see cref="ReplicaEnvironment"/> (applying shipped entries under the write lock) and <see cref="EnvironmentBackup"/>
/// (hot copies). Internal wiring, not API.
/// </summary>
internal readonly record struct EngineParts(StorageOptions Options, ILogger Logger, StatePublisher States, ScratchAllocator Scratch,
    WriteAheadJournal Journal, DataFile DataFile, HeaderStore Headers, TransactionCommitter Committer, FailureLatch Failure, FlushScheduler Flusher,
    EnvironmentMetrics Metrics, BackupGate Backups, JournalGroupSeat GroupSeat);
