using Cairn.Paging;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Paging;

/// <summary>
/// Random histories of Set, Remove, publish and restart-from-an-old-table against a Dictionary.
/// Each published table is checked when published and again after every later publication: a
/// builder that wrote into a node it did not own would show up as an old table changing.
/// </summary>
public class PageTableModelTests
{
    internal abstract record Operation;
    internal sealed record SetPage(long PageNumber) : Operation;
    private sealed record RemovePage(long PageNumber) : Operation;
    /// <summary>Removes the Choice-th present page (mod the count), so removals mostly hit.</summary>
    internal sealed record RemovePresentPage(int Choice) : Operation;
    internal sealed record Publish : Operation;
    /// <summary>Continues from an earlier published table (mod the count), as a rolled-back writer would.</summary>
    private sealed record RestartFrom(int Choice) : Operation;

    [Fact]
    public void Random_histories_match_a_dictionary_and_published_tables_never_change()
        => Check.One(
            Config.QuickThrowOnFailure.WithMaxTest(400).WithEndSize(200),
            Prop.ForAll(Arb.From(Histories, Shrink), (Operation[] history) => Run(history)));

    private static void Run(Operation[] history)
    {
        var published = new List<(PageTable Table, Dictionary<long, PageVersion> Model)> { (PageTable.Empty, []) };
        var builder = PageTable.Empty.ToBuilder();
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
                    Assert.True(builder.TryGet(pageNumber, out var stored) && stored == version);
                    break;
                case RemovePage(long pageNumber):
                    Assert.Equal(model.Remove(pageNumber), builder.Remove(pageNumber));
                    Assert.False(builder.TryGet(pageNumber, out _));
                    break;
                case RemovePresentPage(int choice) when model.Count > 0:
                    long present = model.Keys.ElementAt(choice % model.Count);
                    Assert.True(builder.Remove(present));
                    model.Remove(present);
                    break;
                case Publish:
                    PageTable table = builder.ToImmutable();
                    PageTableAssert.Matches(model, table);
                    published.Add((table, new Dictionary<long, PageVersion>(model)));
                    foreach (var (earlierTable, earlierModel) in published)
                        PageTableAssert.Matches(earlierModel, earlierTable);
                    break;
                case RestartFrom(int choice):
                    var (from, fromModel) = published[choice % published.Count];
                    builder = from.ToBuilder();
                    model = new Dictionary<long, PageVersion>(fromModel);
                    break;
            }
            Assert.Equal(model.Count, builder.Count);
        }
    }

    internal static Gen<long> PageNumbers { get; } = Gen.Frequency(
        (6, Gen.Choose(0, 300).Select(n => (long)n)),                       // dense: updates, shared leaves
        (2, Gen.Choose(0, 200_000).Select(n => (long)n)),                   // a few levels deep
        (1, Gen.Choose(0, 5000).Select(n => PageTable.PageNumberLimit - 1 - n)), // near 2^40: the deepest trie
        (1, Gen.Elements(63L, 64L, 4095L, 4096L, 262143L, 262144L, 1L << 24, (1L << 30) - 1, 1L << 30, 1L << 36, PageTable.PageNumberLimit - 1)),
        (1, Gen.Choose(0, (1 << 20) - 1).Two().Select(parts => ((long)parts.Item1 << 20) | (uint)parts.Item2))); // anywhere

    private static Gen<Operation> Operations { get; } = Gen.Frequency(
        (10, PageNumbers.Select(Operation (n) => new SetPage(n))),
        (2, PageNumbers.Select(Operation (n) => new RemovePage(n))),
        (4, Gen.Choose(0, int.MaxValue).Select(Operation (c) => new RemovePresentPage(c))),
        (2, Gen.Constant<Operation>(new Publish())),
        (1, Gen.Choose(0, int.MaxValue).Select(Operation (c) => new RestartFrom(c))));

    private static Gen<Operation[]> Histories { get; } =
        Gen.Sized(size => Gen.Choose(0, size * 5).SelectMany(length => Operations.ArrayOf(length)));

    /// <summary>Shorter histories first (halves, then one operation less), so failures shrink to a few steps.</summary>
    private static IEnumerable<Operation[]> Shrink(Operation[] history)
    {
        if (history.Length > 1)
        {
            yield return history[..(history.Length / 2)];
            yield return history[(history.Length / 2)..];
        }
        for (int i = 0; i < history.Length; i++)
            yield return [.. history[..i], .. history[(i + 1)..]];
    }
}
