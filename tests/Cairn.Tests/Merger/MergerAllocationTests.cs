using System.Globalization;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Merger;

/// <summary>
/// The merger allocates nothing per operation in steady state (pooled task sources, the operation its
/// own thread-pool work item, state instead of closures): measured in a child process of its own
/// (<c>merger-allocations</c>), where the whole process's allocated bytes count. With a per-transaction
/// cost <c>a</c> and a per-operation cost <c>b</c>, one-operation transactions give <c>a + b</c>, and
/// merged ones (many operations each) then give <c>b</c>.
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
            .ToDictionary(f => f[0], f => (Transactions: long.Parse(f[1], CultureInfo.InvariantCulture),
                Operations: long.Parse(f[2], CultureInfo.InvariantCulture), Bytes: long.Parse(f[3], CultureInfo.InvariantCulture)));

        var (singleShort, singleLong) = (phases["single-200"], phases["single-800"]);
        var (mergedShort, mergedLong) = (phases["merged-20"], phases["merged-100"]);
        Assert.Equal(singleLong.Transactions - singleShort.Transactions, singleLong.Operations - singleShort.Operations);
        long transactions = mergedLong.Transactions - mergedShort.Transactions;
        long operations = mergedLong.Operations - mergedShort.Operations;
        // Otherwise the two unknowns cannot be told apart.
        Assert.True(operations >= 4 * transactions, $"{operations} operations in {transactions} transactions: too few merged to measure");

        double perSingleTransaction = (double)(singleLong.Bytes - singleShort.Bytes) / (singleLong.Transactions - singleShort.Transactions);
        double perOperation = ((mergedLong.Bytes - mergedShort.Bytes) - perSingleTransaction * transactions) / (operations - transactions);
        double perTransaction = perSingleTransaction - perOperation;
        output.WriteLine($"{perTransaction:F0} bytes per transaction, {perOperation:F1} bytes per operation " +
            $"({operations} merged operations in {transactions} transactions)");

        // A few bytes of slack for the runtime's own queues; one pooled object missed would be tens of bytes.
        Assert.True(perOperation < 16, $"{perOperation:F1} bytes allocated per merged operation (per transaction: {perTransaction:F0})");
        Assert.True(perTransaction < 16 * 1024, $"{perTransaction:F0} bytes allocated per transaction");
    }
}
