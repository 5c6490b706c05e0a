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
    private abstract record Operation;
    private sealed record SetPage(long PageNumber) : Operation;
    /// <summary>Removes the Choice-th present page (mod the count).</summary>
    private sealed record RemovePresentPage(int Choice) : Operation;
    private sealed record Publish : Operation;
    /// <summary>The reader of the oldest held table (not the newest) is done.</summary>
    private sealed record ReleaseOldest : Operation;

    [Fact]
    public void Recycled_arrays_never_change_a_table_that_is_still_held()
        => Check.One(
            Config.QuickThrowOnFailure.WithMaxTest(300).WithEndSize(300),
            Prop.ForAll(Arb.From(Histories), (Operation[] history) => Run(history)));

    private static void Run(Operation[] history)
    {
        // Held tables, oldest first, each with its model and the arrays its publication replaced in the one before.
        var held = new List<(PageTable Table, Dictionary<long, PageVersion> Model, List<object> Replaced)> { (PageTable.Empty, [], []) };
        var replaced = new List<object>();
        var builder = PageTable.Empty.ToBuilder(replaced);
        var model = new Dictionary<long, PageVersion>();
        long transactionId = 0;

        foreach (Operation operation in history.Append(new Publish()))
        {
            transactionId++;
            switch (operation)
            {
                case SetPage(long pageNumber):
                    var version = PageTableTests.VersionFor(pageNumber, transactionId);
                    builder.Set(pageNumber, version);
                    model[pageNumber] = version;
                    break;
                case RemovePresentPage(int choice) when model.Count > 0:
                    long present = model.Keys.ElementAt(choice % model.Count);
                    Assert.True(builder.Remove(present));
                    model.Remove(present);
                    break;
                case Publish:
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

    private static Gen<long> PageNumbers { get; } = Gen.Frequency(
        (6, Gen.Choose(0, 300).Select(n => (long)n)),                  // dense: updates, shared leaves
        (2, Gen.Choose(0, 200_000).Select(n => (long)n)),              // a few levels deep
        (1, Gen.Elements(63L, 64L, 4095L, 4096L, 262143L, 262144L, 1L << 30, PageTable.PageNumberLimit - 1)));

    private static Gen<Operation> Operations { get; } = Gen.Frequency(
        (10, PageNumbers.Select(Operation (n) => new SetPage(n))),
        (5, Gen.Choose(0, int.MaxValue).Select(Operation (c) => new RemovePresentPage(c))),
        (3, Gen.Constant<Operation>(new Publish())),
        (3, Gen.Constant<Operation>(new ReleaseOldest())));

    private static Gen<Operation[]> Histories { get; } =
        Gen.Sized(size => Gen.Choose(0, size * 5).SelectMany(length => Operations.ArrayOf(length)));
}
