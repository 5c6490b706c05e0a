using Cairn.Diagnostics;
using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Opening;

/// <summary>What opening leaves for the environment to run on: its files, the recovered first state, and what recovery did.</summary>
internal sealed record OpenedEnvironment(
    DataFile DataFile,
    HeaderStore Headers,
    ScratchAllocator Scratch,
    EnvironmentState InitialState,
    FreeSpaceMap FreeSpace,
    WriteAheadJournal Journal,
    IoStats IoStats,
    long TransactionsReplayed);
