using Cairn.Journal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Commit;

/// <summary>
/// One transaction on its way through the <see cref="CommitPipeline"/>: what the prepare stage made of it
/// (its id, its journal entry, the allocations it made final) and where the write stage put the entry.
/// Reused from commit to commit: it owns the entry's aligned buffer, so a commit allocates nothing.
/// </summary>
internal sealed class PreparedCommit : IDisposable
{
    public JournalBuffer Buffer { get; } = new();

    /// <summary>Pages this transaction allocated from the free-space map: given back if the commit fails.</summary>
    public List<(long PageNumber, int Count)> Allocations { get; } = [];

    public LowLevelTransaction? Transaction { get; set; }

    /// <summary>The committed transaction's id (for a transaction that changed nothing: the one it read).</summary>
    public long TransactionId { get; set; }

    /// <summary>Bytes of the journal entry in <see cref="Buffer"/>; 0 when there is nothing to write.</summary>
    public long EntryLength { get; set; }

    /// <summary>The state this transaction leads to, before it is published (the merger opens the next transaction on it).</summary>
    public EnvironmentState? StateAfter { get; set; }

    /// <summary>Arrays of <see cref="BuiltOn"/>'s page table that <see cref="StateAfter"/>'s no longer has: retired if StateAfter's table is published as it is.</summary>
    public List<object> ReplacedTableArrays { get; } = [];

    /// <summary>The published state <see cref="StateAfter"/> was built on: if it is still current at publication, StateAfter's page table is published as it is.</summary>
    public EnvironmentState? BuiltOn { get; set; }

    /// <summary>Builds <see cref="StateAfter"/>'s page table; kept from commit to commit, started over each time.</summary>
    public PageTable.Builder? TableBuilder { get; set; }

    /// <summary>Where the write stage put the entry.</summary>
    public JournalPosition Position { get; set; }

    public bool HasEntry => EntryLength != 0;

    public void Reset()
    {
        Transaction = null;
        Allocations.Clear();
        TransactionId = 0;
        EntryLength = 0;
        StateAfter = null;
        BuiltOn = null;
        ReplacedTableArrays.Clear();
        Position = default;
    }

    public void Dispose() => Buffer.Dispose();
}
