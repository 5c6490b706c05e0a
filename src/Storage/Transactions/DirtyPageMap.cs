using Cairn.Paging;

namespace Cairn.Transactions;

/// <summary>
/// A writer's dirty page runs by page number, and the store their recorded write ranges live in. Its owner
/// keeps it from transaction to transaction (no allocation per commit); the sets are taken back whenever the
/// map is empty again (<see cref="LowLevelTransaction"/> does that before it adds the first run).
/// </summary>
internal sealed class DirtyPageMap : Dictionary<long, LowLevelTransaction.DirtyRun>
{
    public DirtyRangeStore Ranges { get; } = new();
}
