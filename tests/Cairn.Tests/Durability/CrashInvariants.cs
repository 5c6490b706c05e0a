using Cairn.TestChild;
using Xunit.Sdk;

namespace Cairn.Tests.Durability;

/// <summary>
/// The durability invariants of a database written by <see cref="CrashWorkload"/> and reopened after a
/// crash, shared by every harness that produces one (killed child processes, reconstructed disk images,
/// concurrent committers): no acknowledged transaction lost, nothing half-applied, the transactions
/// present form a prefix with no holes, and the structure verifies.
/// </summary>
public static class CrashInvariants
{
    private const int MaxVerifyProblems = 10;

    /// <summary>
    /// Checks <paramref name="env"/> and returns L, the last workload transaction it holds (meta/last);
    /// throws an assertion failure listing every problem found. See <see cref="Inspect"/>.
    /// </summary>
    public static long Check(StorageEnvironment env, CrashWorkloadModel model, long highestAcknowledged, long highestPossible)
    {
        var result = Inspect(env, model, highestAcknowledged, highestPossible);
        if (result.Problems.Count > 0)
            throw new XunitException(string.Join(System.Environment.NewLine, result.Problems));
        return result.Last;
    }

    /// <summary>
    /// Reads L (meta/last) and lists what is wrong unless L is in [<paramref name="highestAcknowledged"/>,
    /// <paramref name="highestPossible"/>], the whole database equals <paramref name="model"/> advanced to L
    /// (every tree, key and value; no others), and <see cref="StorageEnvironment.Verify"/> passes.
    /// </summary>
    /// <param name="highestAcknowledged">Every transaction up to this one was acknowledged, so must be present.</param>
    /// <param name="highestPossible">No transaction past this one was ever started, so none may be present.</param>
    /// <remarks>
    /// Comparing everything with the model at exactly L is what catches partial transactions and holes:
    /// a missing or extra operation of any transaction shows up as a differing key. The model only moves
    /// forward, so successive checks of one database cost one pass over the workload in all.
    /// </remarks>
    public static CrashCheckResult Inspect(StorageEnvironment env, CrashWorkloadModel model, long highestAcknowledged, long highestPossible)
    {
        long last;
        try
        {
            using var tx = env.BeginRead();
            last = CrashWorkload.ReadLast(tx);
        }
        catch (Exception e)
        {
            return new CrashCheckResult(-1, 0, [$"cannot read meta/last: {e.GetType().Name}: {e.Message}"]);
        }

        var problems = new List<string>();
        long lost = Math.Max(0, highestAcknowledged - last);
        if (lost > 0)
            problems.Add($"acknowledged transactions lost: transactions up to {highestAcknowledged} were acknowledged, " +
                $"but the database holds only up to {last}; lost: {Range(last + 1, highestAcknowledged)}");
        if (last > highestPossible)
            problems.Add($"the database claims transaction {last}, but no transaction past {highestPossible} was ever started");

        try
        {
            env.Verify();
        }
        catch (VerificationException e)
        {
            problems.Add($"Verify() found {e.Problems.Count} problem(s):" + Lines(e.Problems.Take(MaxVerifyProblems)) +
                (e.Problems.Count > MaxVerifyProblems ? $"{System.Environment.NewLine}    … and {e.Problems.Count - MaxVerifyProblems} more" : ""));
        }
        catch (Exception e)
        {
            problems.Add($"Verify() threw {e.GetType().Name}: {e.Message}");
        }

        if (last < model.Position)
            problems.Add($"the database went back to transaction {last}, before {model.Position}, which an earlier check saw");
        else if (last <= highestPossible)
        {
            model.AdvanceTo(last);
            var differences = DatabaseComparison.Differences(env, model);
            if (differences.Count > 0)
                problems.Add($"the database is not exactly transactions 1..{last} (a half-applied transaction or a hole):" + Lines(differences));
        }
        return new CrashCheckResult(last, lost, problems);
    }

    private static string Lines(IEnumerable<string> items) => string.Concat(items.Select(item => System.Environment.NewLine + "    " + item));

    private static string Range(long first, long last) => first == last
        ? $"transaction {first}"
        : $"transactions {first}..{last} ({last - first + 1} of them)";
}

/// <summary>What <see cref="CrashInvariants.Inspect"/> found: L (−1 if unreadable), how many acknowledged transactions are missing, and every problem.</summary>
public sealed record CrashCheckResult(long Last, long Lost, IReadOnlyList<string> Problems);
