using System.Globalization;
using System.Text;

namespace Cairn.Cluster.Tests.Linearizability;

public enum Verdict
{
    Linearizable,
    NotLinearizable,

    /// <summary>The search limit was reached first: nothing is known, and it is never a pass.</summary>
    Unknown,
}

/// <summary>An operation of the longest linearizable prefix, with the model's state after it.</summary>
public sealed record PlacedOperation(Operation Operation, string StateAfter);

/// <summary>An operation that could be next after the longest prefix, and why it was not.</summary>
public sealed record UnplacedOperation(Operation Operation, string Reason);

/// <summary>
/// One partition's verdict (a key's, for the key-value model). When it is not linearizable, or the limit was
/// reached: the longest linearizable prefix the search found, the operations that could come next after it and why
/// each could not, and the operation whose completion bounds them (every one of them had to be placed before it
/// returned).
/// </summary>
public sealed record PartitionResult(
    string Name,
    Verdict Verdict,
    int Operations,
    long Steps,
    IReadOnlyList<PlacedOperation> LongestPrefix,
    IReadOnlyList<UnplacedOperation> Unplaced,
    Operation? FirstToReturn);

/// <summary>
/// The checker's verdict: not linearizable when any partition is not; otherwise unknown when any partition hit the
/// limit; otherwise linearizable. <see cref="Explain"/> gives a person the reason.
/// </summary>
public sealed record CheckResult(Verdict Verdict, History History, IReadOnlyList<PartitionResult> Partitions, int LeftOut, long Steps, TimeSpan Elapsed)
{
    /// <summary>How many of the prefix's last operations an explanation lists: the end is where it went wrong.</summary>
    private const int PrefixShown = 30;

    public string Explain()
    {
        var text = new StringBuilder();
        int failing = Partitions.Count(p => p.Verdict == Verdict.NotLinearizable);
        int unknown = Partitions.Count(p => p.Verdict == Verdict.Unknown);
        text.Append(Verdict switch
        {
            Verdict.Linearizable => "linearizable",
            Verdict.NotLinearizable => "NOT linearizable",
            _ => "unknown: search limit reached",
        });
        text.Append(CultureInfo.InvariantCulture, $": {History.Operations.Count} operations ({LeftOut} failed, unobserved reads or unobservable unknown writes left out) in {Partitions.Count} partitions");
        text.Append(CultureInfo.InvariantCulture, $", {failing} not linearizable, {unknown} unknown; {Steps} search steps in {Elapsed.TotalMilliseconds:0.0} ms\n");
        foreach (var partition in Partitions.Where(p => p.Verdict != Verdict.Linearizable))
            ExplainPartition(text, partition);
        return text.ToString();
    }

    private void ExplainPartition(StringBuilder text, PartitionResult p)
    {
        string verdict = p.Verdict == Verdict.NotLinearizable ? "not linearizable" : "unknown (search limit reached)";
        text.Append(CultureInfo.InvariantCulture, $"\npartition {p.Name}: {verdict}, {p.Operations} operations, {p.Steps} steps\n");
        text.Append(CultureInfo.InvariantCulture, $"  longest linearizable prefix found: {p.LongestPrefix.Count} of {p.Operations} operations\n");
        int shownFrom = Math.Max(0, p.LongestPrefix.Count - PrefixShown);
        if (shownFrom > 0)
            text.Append(CultureInfo.InvariantCulture, $"    ... {shownFrom} earlier operations (in {nameof(PartitionResult.LongestPrefix)})\n");
        for (int i = shownFrom; i < p.LongestPrefix.Count; i++)
            text.Append(CultureInfo.InvariantCulture, $"    {i + 1,4}. {History.Describe(p.LongestPrefix[i].Operation)}  => {p.LongestPrefix[i].StateAfter}\n");
        if (p.FirstToReturn is { } first)
            text.Append(CultureInfo.InvariantCulture, $"  after it, none of these could be placed (each was invoked before {History.Describe(first)} returned, so one of them must come next):\n");
        foreach (var unplaced in p.Unplaced)
            text.Append(CultureInfo.InvariantCulture, $"    {History.Describe(unplaced.Operation)}: {unplaced.Reason}\n");
    }
}
