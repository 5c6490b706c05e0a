using System.Diagnostics;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// Checks a history against a model: leaves out what cannot matter (failed operations, which did not happen, and
/// reads of unknown outcome, which observed nothing and change nothing), splits the rest by the model's partition
/// (P-compositionality: a key-value history is linearizable exactly when each key's is), leaves out what the model
/// says no linearization of a partition depends on, and searches each partition with
/// <see cref="PartitionSearch{TState}"/>, smallest first.
/// </summary>
public static class LinearizabilityChecker
{
    public static CheckResult Check<TState>(History history, IModel<TState> model, CheckLimits? limits = null)
    {
        limits ??= CheckLimits.Default;
        long started = Stopwatch.GetTimestamp();
        long deadline = limits.Timeout is { } timeout ? started + (long)(timeout.TotalSeconds * Stopwatch.Frequency) : long.MaxValue;
        var partitions = history.Operations.Where(Matters)
            .GroupBy(op => model.PartitionOf(op), StringComparer.Ordinal)
            .Select(g => (Name: g.Key is null ? "(whole history)" : OperationCall.Quote(g.Key), Ops: model.WithoutUnobservable(g.OrderBy(o => o.Id).ToList())))
            .OrderBy(p => p.Ops.Count).ThenBy(p => p.Name, StringComparer.Ordinal)
            .ToList();
        int kept = partitions.Sum(p => p.Ops.Count);
        var results = new List<PartitionResult>(partitions.Count);
        foreach (var (name, ops) in partitions)
            results.Add(new PartitionSearch<TState>(ops, model).Run(name, limits, deadline));
        var verdict = results.Any(r => r.Verdict == Verdict.NotLinearizable) ? Verdict.NotLinearizable
            : results.Any(r => r.Verdict == Verdict.Unknown) ? Verdict.Unknown
            : Verdict.Linearizable;
        return new CheckResult(verdict, history, results, history.Operations.Count - kept,
            results.Sum(r => r.Steps), Stopwatch.GetElapsedTime(started));
    }

    /// <summary>False for an operation no linearization depends on: a failure, or a read whose result nobody saw.</summary>
    private static bool Matters(Operation op) => op.Completion.Outcome switch
    {
        Outcome.Fail => false,
        Outcome.Unknown => op.Call.Writes,
        _ => true,
    };
}
