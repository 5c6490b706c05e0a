using Cairn.Paging;

namespace Cairn.Journal;

/// <summary>
/// What a header synced up to a transaction records: the transaction, its root record and where its journal entry ends.
/// A published state is one (<c>EnvironmentState</c>); so is the last entry of a journal a checkpoint goes through on
/// its way (<see cref="Files.JournalEnds"/>).
/// </summary>
internal readonly record struct SyncPoint(long TransactionId, RootRecord Root, JournalPosition Position);
