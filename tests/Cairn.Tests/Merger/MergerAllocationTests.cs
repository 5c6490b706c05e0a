using System.Globalization;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Merger;

/// <summary>
/// The merger allocates nothing per operation in steady state (pooled task sources, the operation its
/// own thread-pool work item, state instead of closures): measured in a child process of its own
/// (<c>merger-allocations</c>), where the whole process's allocated bytes count. With a per-transaction
/// cost <c>a</c> and a per-operation cost <c>b</c>, one-operation transactions give <c>a + b</c>, and
/// merged ones (many operations each) then give <c>b</c>. The child repeats the phases, and the smallest
/// per-operation figure is judged: a cost per operation shows in every repetition, a one-off in one.
/// </summary>
public sealed class MergerAllocationTests(ITestOutputHelper output)
{
    [Fact]
    public void Merged_operations_allocate_nothing_per_operation_in_steady_state()
    {
        using var dir = new TestDirectory("merger-allocations");
        var phases = ChildProcess.Run("merger-allocations", dir.Path)
            .Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(line => line.Split(' '))
            .GroupBy(f => f[0], f => new Phase(long.Parse(f[1], CultureInfo.InvariantCulture),
                long.Parse(f[2], CultureInfo.InvariantCulture), long.Parse(f[3], CultureInfo.InvariantCulture)))
            .ToDictionary(g => g.Key, g => g.ToArray());

        // Each repetition solves for the two costs; the smallest per-operation figure is the steady state, since a
        // one-off allocation (a pool growing, the runtime's own queues) only ever adds bytes to one repetition.
        var estimates = Enumerable.Range(0, phases["single-200"].Length)
            .Select(r => Solve(phases["single-200"][r], phases["single-800"][r], phases["merged-20"][r], phases["merged-100"][r]))
            .ToArray();
        foreach (var (perTransaction, perOperation) in estimates)
            output.WriteLine($"{perTransaction:F0} bytes per transaction, {perOperation:F1} bytes per operation");
        var steady = estimates.MinBy(e => e.PerOperation);

        // A few bytes of slack for the runtime's own queues; one pooled object missed would be tens of bytes.
        Assert.True(steady.PerOperation < 16, $"{steady.PerOperation:F1} bytes allocated per merged operation (per transaction: {steady.PerTransaction:F0})");
        // Per transaction: the published state and its page table (about 190 bytes). The merger keeps each slot's
        // low-level transaction, read context, tree objects, page-table builder and the wrapper handed to operations from
        // commit to commit, and publishes the state it built for the next transaction instead of a copy; with new ones
        // per transaction (issue 29) a transaction cost about 1,350 bytes, with only the context kept about 590, with a
        // new wrapper each about 300 (stop 42).
        Assert.True(steady.PerTransaction < 230, $"{steady.PerTransaction:F0} bytes allocated per transaction");
    }

    private readonly record struct Phase(long Transactions, long Operations, long Bytes);

    private static (double PerTransaction, double PerOperation) Solve(Phase singleShort, Phase singleLong, Phase mergedShort, Phase mergedLong)
    {
        Assert.Equal(singleLong.Transactions - singleShort.Transactions, singleLong.Operations - singleShort.Operations);
        long transactions = mergedLong.Transactions - mergedShort.Transactions;
        long operations = mergedLong.Operations - mergedShort.Operations;
        // Otherwise the two unknowns cannot be told apart.
        Assert.True(operations >= 4 * transactions, $"{operations} operations in {transactions} transactions: too few merged to measure");
        double perSingleTransaction = (double)(singleLong.Bytes - singleShort.Bytes) / (singleLong.Transactions - singleShort.Transactions);
        double perOperation = ((mergedLong.Bytes - mergedShort.Bytes) - perSingleTransaction * transactions) / (operations - transactions);
        return (perSingleTransaction - perOperation, perOperation);
    }
}
