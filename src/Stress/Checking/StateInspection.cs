using Cairn.Stress.Workload;

namespace Cairn.Stress.Checking;

/// <summary>What <see cref="StateInspection.Inspect"/> found in one reopened environment.</summary>
/// <param name="Last">L, the last workload transaction it holds (−1 if unreadable).</param>
/// <param name="Lost">Acknowledged transactions missing (every one up to the highest acknowledged is owed).</param>
/// <param name="HalfApplied">Transactions seen partly, or holes: 0 when the database is exactly transactions 1..L.</param>
/// <param name="Phantom">L is past every transaction that was ever started.</param>
/// <param name="VerifyFailed"><see cref="StorageEnvironment.Verify"/> found damage or threw.</param>
/// <param name="Problems">Every problem, in words.</param>
internal sealed record InspectionResult(long Last, long Lost, int HalfApplied, bool Phantom, bool VerifyFailed, IReadOnlyList<string> Problems)
{
    public bool IsClean => Problems.Count == 0;
}

/// <summary>
/// The durability invariants of a reopened environment: no acknowledged transaction lost, nothing half-applied,
/// the transactions present form a prefix with no holes and no transaction that was never started, and the
/// structure verifies.
/// </summary>
internal static class StateInspection
{
    private const int MaxVerifyProblems = 10;

    /// <summary>
    /// Reads L (meta/last) and lists what is wrong unless L is within <paramref name="bounds"/>, the whole database
    /// equals <paramref name="model"/> advanced to L (every tree, key and value; no others), and
    /// <see cref="StorageEnvironment.Verify"/> passes.
    /// </summary>
    /// <remarks>
    /// Comparing everything with the model at exactly L is what catches partial transactions and holes: a missing
    /// or extra operation of any transaction shows up as a differing key. The model only moves forward, so
    /// successive checks of one database cost one pass over the workload in all.
    /// </remarks>
    public static InspectionResult Inspect(StorageEnvironment env, StressModel model, TransactionBounds bounds)
    {
        long last;
        try
        {
            using var tx = env.BeginRead();
            last = StressWorkload.ReadLast(tx);
        }
        catch (Exception e)
        {
            return new InspectionResult(-1, 0, 0, false, false, [$"cannot read meta/last: {e.GetType().Name}: {e.Message}"]);
        }

        var problems = new List<string>();
        long lost = Math.Max(0, bounds.HighestAcknowledged - last);
        if (lost > 0)
            problems.Add($"acknowledged transactions lost: transactions up to {bounds.HighestAcknowledged} were acknowledged, " +
                $"but the database holds only up to {last}; lost: {Range(last + 1, bounds.HighestAcknowledged)}");
        bool phantom = last > bounds.HighestPossible;
        if (phantom)
            problems.Add($"the database claims transaction {last}, but no transaction past {bounds.HighestPossible} was ever started");

        bool verifyFailed = Verify(env, problems);

        int halfApplied = 0;
        if (last < model.Position)
        {
            problems.Add($"the database went back to transaction {last}, before {model.Position}, which an earlier check saw");
            halfApplied = 1;
        }
        else if (!phantom)
        {
            model.AdvanceTo(last);
            var comparison = DatabaseComparison.Compare(env, model);
            if (!comparison.IsExact)
            {
                halfApplied = Math.Max(1, comparison.Implicated.Count);
                problems.Add($"the database is not exactly transactions 1..{last} (a half-applied transaction or a hole; " +
                    $"transactions seen partly: {Describe(comparison.Implicated)}):" + Lines(comparison.Differences));
            }
        }
        return new InspectionResult(last, lost, halfApplied, phantom, verifyFailed, problems);
    }

    private static bool Verify(StorageEnvironment env, List<string> problems)
    {
        try
        {
            env.Verify();
            return false;
        }
        catch (VerificationException e)
        {
            problems.Add($"Verify() found {e.Problems.Count} problem(s):" + Lines(e.Problems.Take(MaxVerifyProblems)) +
                (e.Problems.Count > MaxVerifyProblems ? $"{Environment.NewLine}    … and {e.Problems.Count - MaxVerifyProblems} more" : ""));
        }
        catch (Exception e)
        {
            problems.Add($"Verify() threw {e.GetType().Name}: {e.Message}");
        }
        return true;
    }

    private static string Describe(IReadOnlySet<long> transactions)
        => transactions.Count == 0 ? "none named" : string.Join(", ", transactions.Order().Take(10)) + (transactions.Count > 10 ? ", …" : "");

    private static string Lines(IEnumerable<string> items) => string.Concat(items.Select(item => Environment.NewLine + "    " + item));

    private static string Range(long first, long last) => first == last
        ? $"transaction {first}"
        : $"transactions {first}..{last} ({last - first + 1} of them)";
}
