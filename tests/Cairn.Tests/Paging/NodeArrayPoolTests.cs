using Cairn.Paging;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Paging;

/// <summary>
/// Page-table arrays are recycled (<see cref="NodeArrayPool"/>) without ever changing a table someone may
/// still read: random histories of sets, removes and publications, with readers holding older tables and
/// letting them go oldest first. The arrays a publication replaced go back to the pool once no older table
/// is held, as the reclaimer returns them; every held table must still match its model after every step,
/// and the current builder's table too. An array put on a replaced list while the new table still reached
/// it would be handed to a later builder and show up here as a table changing.
/// </summary>
public class NodeArrayPoolTests
{
    /// <summary>The reader of the oldest held table (not the newest) is done.</summary>
    private sealed record ReleaseOldest : PageTableModelTests.Operation;

    [Fact]
    public void Recycled_arrays_never_change_a_table_that_is_still_held()
        => Check.One(
            Config.QuickThrowOnFailure.WithMaxTest(300).WithEndSize(300),
            Prop.ForAll(Arb.From(Histories), (PageTableModelTests.Operation[] history) => Run(history)));

    private static void Run(PageTableModelTests.Operation[] history)
    {
        // Held tables, oldest first, each with its model and the arrays its publication replaced in the one before.
        var held = new List<(PageTable Table, Dictionary<long, PageVersion> Model, List<object> Replaced)> { (PageTable.Empty, [], []) };
        var replaced = new List<object>();
        var builder = PageTable.Empty.ToBuilder(replaced);
        var model = new Dictionary<long, PageVersion>();
        long transactionId = 0;

        foreach (var operation in history.Append(new PageTableModelTests.Publish()))
        {
            transactionId++;
            switch (operation)
            {
                case PageTableModelTests.SetPage(long pageNumber):
                    var version = PageTableTests.VersionFor(pageNumber, transactionId);
                    builder.Set(pageNumber, version);
                    model[pageNumber] = version;
                    break;
                case PageTableModelTests.RemovePresentPage(int choice) when model.Count > 0:
                    long present = model.Keys.ElementAt(choice % model.Count);
                    Assert.True(builder.Remove(present));
                    model.Remove(present);
                    break;
                case PageTableModelTests.Publish:
                    held.Add((builder.ToImmutable(), new Dictionary<long, PageVersion>(model), replaced));
                    replaced = [];
                    builder = held[^1].Table.ToBuilder(replaced);
                    break;
                case ReleaseOldest when held.Count > 1:
                    held.RemoveAt(0);
                    // Nothing older than held[0] is held now: what its publication replaced goes back.
                    foreach (object array in held[0].Replaced)
                        NodeArrayPool.Return(array);
                    held[0].Replaced.Clear();
                    break;
            }
            foreach (var (table, tableModel, _) in held)
                PageTableAssert.Matches(tableModel, table);
            foreach (var (pageNumber, version) in model)
                Assert.True(builder.TryGet(pageNumber, out var stored) && stored == version);
        }
    }

    private static Gen<PageTableModelTests.Operation> Operations { get; } = Gen.Frequency(
        (10, PageTableModelTests.PageNumbers.Select(PageTableModelTests.Operation (n) => new PageTableModelTests.SetPage(n))),
        (5, Gen.Choose(0, int.MaxValue).Select(PageTableModelTests.Operation (c) => new PageTableModelTests.RemovePresentPage(c))),
        (3, Gen.Constant<PageTableModelTests.Operation>(new PageTableModelTests.Publish())),
        (3, Gen.Constant<PageTableModelTests.Operation>(new ReleaseOldest())));

    private static Gen<PageTableModelTests.Operation[]> Histories { get; } =
        Gen.Sized(size => Gen.Choose(0, size * 5).SelectMany(length => Operations.ArrayOf(length)));
}
