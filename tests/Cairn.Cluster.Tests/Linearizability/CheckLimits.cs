namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// How far the checker searches a partition before it answers <see cref="Verdict.Unknown"/>: a number of search
/// steps and a size for the memo (each entry holds a bitset of the partition's operations, so this bounds memory),
/// both deterministic: the same history always gets the same verdict; and, optionally, a wall-clock budget for the
/// whole check (for campaigns: the verdict then depends on the machine, but is never a false pass).
/// </summary>
public sealed record CheckLimits(long MaxStepsPerPartition, long MaxMemoBytesPerPartition = 1L << 30, TimeSpan? Timeout = null)
{
    public static readonly CheckLimits Default = new(10_000_000);

    /// <summary>The memo entries <see cref="MaxMemoBytesPerPartition"/> allows for a partition of this many operations.</summary>
    internal long MaxMemoEntries(int operations) => MaxMemoBytesPerPartition / (EntryOverheadBytes + 8 * ((operations + 63) / 64));

    /// <summary>A memo entry's bytes besides its bitset's words: the set object, the array header, the hash-set slot.</summary>
    private const int EntryOverheadBytes = 112;
}
