namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// Changes one acknowledged read's result to a value it cannot have returned at any point of its interval, chosen
/// at random among those the history offers: a value never written; a value whose only write was invoked after the
/// read returned; or a value whose write completed, and was then overwritten by a write that completed, before the
/// read was invoked (values are unique, so each has one write).
/// </summary>
public static class ImpossibleRead
{
    public enum Kind { NeverWritten, WrittenAfterTheRead, Overwritten }

    public sealed record Mutation(History History, Operation Read, string Value, Kind Kind, string Why);

    public static Mutation Apply(History history, Random random)
    {
        var reads = history.Operations.Where(o => o.Call.Kind == OperationKind.Get && o.Completion.Outcome == Outcome.Ok).ToList();
        var read = reads[random.Next(reads.Count)];
        long invoked = read.InvokedAt, returned = read.Completion.At!.Value;
        var sameKey = history.Operations.Where(o => o.Id != read.Id && o.Call.Key == read.Call.Key).ToList();
        var candidates = new List<(string Value, Kind Kind, string Why)> { ("never-written", Kind.NeverWritten, "never written") };
        foreach (var write in sameKey.Where(o => o.Call.Value is not null && o.InvokedAt > returned))
            candidates.Add((write.Call.Value!, Kind.WrittenAfterTheRead, $"written by op {write.Id}, invoked after the read returned"));
        foreach (var write in sameKey.Where(o => DefinitelyWrote(o) && o.Call.Value is not null))
        {
            var over = sameKey.FirstOrDefault(w => w.Id != write.Id && DefinitelyWrote(w)
                && write.Completion.At < w.InvokedAt && w.Completion.At < invoked);
            if (over is not null)
                candidates.Add((write.Call.Value!, Kind.Overwritten, $"written by op {write.Id}, overwritten by op {over.Id} before the read"));
        }
        var (value, kind, why) = candidates[random.Next(candidates.Count)];
        var changed = read with { Completion = Completion.OkRead(returned, value) };
        var operations = history.Operations.Select(o => o.Id == read.Id ? changed : o);
        return new Mutation(new History(operations, history.TicksPerSecond), changed, value, kind, why);
    }

    /// <summary>Acknowledged, and changed the key for certain: a put, a delete, or a compare-and-set that swapped.</summary>
    private static bool DefinitelyWrote(Operation op) =>
        op.Completion.Outcome == Outcome.Ok && op.Call.Kind switch
        {
            OperationKind.Put or OperationKind.Delete => true,
            OperationKind.CompareAndSet => op.Completion.Swapped,
            _ => false,
        };
}
