using Cairn.Stress.Checking;
using Cairn.Stress.Protocol;
using Cairn.Stress.Workload;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// The expected state of every environment of a stress directory, and the verdict on each child run and each
/// reopen: per environment, the model of its workload and the bounds the acknowledgements set (what is owed,
/// what may be there because it was in flight). Works from <see cref="ChildRun"/>s, however they were produced,
/// so the checker itself can be tested with made-up transcripts. Counts every finding in the tally and throws
/// <see cref="CampaignFailure"/> at the first.
/// </summary>
internal sealed class CampaignJudge
{
    private readonly string _directory;
    private readonly int _branches;
    private readonly StressModel[] _models;
    private readonly TransactionBounds[] _bounds;
    private readonly CampaignTally _tally;
    private readonly ProbeCapture _probe;
    private readonly EnvironmentChecker _checker;

    public CampaignJudge(string directory, long seed, WorkloadShape shape, int branches, int commitsAfterRecovery, CampaignTally tally, ProbeCapture probe)
    {
        _directory = directory;
        _branches = branches;
        _models = [.. Enumerable.Range(0, branches + 1).Select(k => new StressModel(new StressWorkload(EnvironmentLayout.WorkloadSeed(seed, k), shape)))];
        _bounds = new TransactionBounds[branches + 1];
        _tally = tally;
        _probe = probe;
        _checker = new EnvironmentChecker(directory, branches, commitsAfterRecovery, _models, _bounds, tally, probe,
            branches > 0 ? new ImpostorMembers(directory, branches, tally, new Random(unchecked((int)seed))) : null);
    }

    /// <summary>What environment <paramref name="k"/> must hold now.</summary>
    public TransactionBounds Bounds(int k) => _bounds[k];

    /// <summary>
    /// Before the first child: opens each environment once (creating it, and letting the engine probe the file
    /// system), refuses a directory another workload wrote, and takes over where an earlier campaign of this one
    /// left off, after checking that the database is exactly the transactions it claims.
    /// </summary>
    /// <exception cref="InvalidOperationException">The directory holds an environment that is not this workload's.</exception>
    public void Prepare()
    {
        for (int k = 0; k <= _branches; k++)
        {
            var options = StorageSettings.Default.ToStorageOptions(EnvironmentLayout.Directory(_directory, k, _branches), _probe);
            using var env = StorageEnvironment.Open(options);
            long last;
            using (var tx = env.BeginRead())
            {
                last = StressWorkload.ReadLast(tx);
                string? marker = StressWorkload.ReadMarker(tx);
                string expected = System.Text.Encoding.UTF8.GetString(_models[k].Workload.Marker);
                if (marker != expected && (marker is not null || tx.GetTreeNames().Count > 0))
                    throw new InvalidOperationException($"'{options.DirectoryPath}' holds an environment written by " +
                        (marker is null ? "something other than a stress campaign" : $"another workload ({marker})") +
                        $", not by this campaign ({expected}); give a new or empty directory, or the same seed and workload");
            }
            _bounds[k] = new TransactionBounds(last, last);
            var result = StateInspection.Inspect(env, _models[k], _bounds[k]);
            _tally.RecordInspection(result);
            if (!result.IsClean)
                throw new CampaignFailure($"{EnvironmentLayout.Name(k)} as an earlier campaign left it:{Environment.NewLine}" + string.Join(Environment.NewLine, result.Problems));
        }
    }

    /// <summary>A child that was killed: it must have run until then, said nothing wrong, and found what is owed on opening.</summary>
    public void JudgeKilled(ChildRun run, ChildSettings child) => Judge(run, child, killed: true);

    /// <summary>A child that was asked to stop: it must have closed cleanly, so its acknowledgements are everything it committed.</summary>
    public void JudgeStopped(ChildRun run, ChildSettings child) => Judge(run, child, killed: false);

    /// <summary>A child that never printed the line it was waiting for (died of an error, or hung and was killed).</summary>
    public void JudgeUnfinished(ChildRun run, string waitedFor)
    {
        _tally.RecordRun(run, killed: false);
        _tally.RecordChildFailure();
        throw new CampaignFailure($"the child never got to {waitedFor}: {run}");
    }

    /// <summary>Reopens the environments, checks them and makes them work (see <see cref="EnvironmentChecker"/>).</summary>
    public void Check(CheckMode mode, StorageSettings storage)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        try
        {
            _checker.Check(mode, storage);
        }
        finally
        {
            _tally.RecordChecking(watch.Elapsed);
        }
    }

    /// <summary>
    /// Each environment a child opened was recovered by the child itself: the start it found must fit the bounds
    /// (a start below what was acknowledged means acknowledged transactions were lost). Its acknowledgements then
    /// move the bounds: up to the highest acknowledged is owed; past it, only what its callers had in flight (nothing,
    /// after a clean stop).
    /// </summary>
    private void Judge(ChildRun run, ChildSettings child, bool killed)
    {
        _tally.RecordRun(run, killed);
        var problems = new List<string>();
        bool ranAsPlanned = killed ? run.WasKilledCleanly : run.StoppedCleanly;
        if (!ranAsPlanned)
        {
            _tally.RecordChildFailure();
            problems.Add(killed ? "the child did not run until the kill" : "the child did not stop cleanly when asked");
        }
        for (int k = 0; k <= _branches; k++)
        {
            if (run.Start[k] is not { } start)
                continue;
            if (_bounds[k].ProblemWithStart(start) is { } problem)
            {
                _tally.RecordLost(Math.Max(0, _bounds[k].HighestAcknowledged - start), phantom: start > _bounds[k].HighestPossible);
                problems.Add($"{EnvironmentLayout.Name(k)}: {problem}");
                continue;
            }
            bool nothingInFlight = !killed && ranAsPlanned;
            _bounds[k] = _bounds[k].AfterChild(run.HighestReported[k], nothingInFlight ? 0 : child.InFlight(k));
        }
        if (run.Violations.Count > 0)
            problems.Add($"readers saw {run.Violations.Count} broken snapshot(s): {string.Join(Environment.NewLine + "    ", run.Violations.Take(5))}");
        ThrowIfAny(problems, run);
    }

    private static void ThrowIfAny(List<string> problems, ChildRun run)
    {
        if (problems.Count > 0)
            throw new CampaignFailure(string.Join(Environment.NewLine, problems) + $"{Environment.NewLine}the child: {run}");
    }
}
