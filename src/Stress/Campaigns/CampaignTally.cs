using System.Diagnostics;
using Cairn.Stress.Checking;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// The running counts of a campaign: written by the campaign's loop, read at any moment by the progress line
/// (which adds the acknowledgements of the child running now).
/// </summary>
internal sealed class CampaignTally
{
    private readonly Lock _gate = new();
    private readonly Stopwatch _elapsed = Stopwatch.StartNew();
    private readonly List<TimeSpan> _recoveries = [];
    private readonly List<TimeSpan> _launches = [];
    private readonly List<TimeSpan> _childOpenings = [];
    private readonly Dictionary<string, int> _points = new(StringComparer.Ordinal);
    private ChildTranscript? _live;
    private int _kills;
    private long _acknowledged;
    private TimeSpan _writing;
    private long _lost;
    private long _halfApplied;
    private long _phantoms;
    private long _readerViolations;
    private int _verifyFailures;
    private int _childFailures;
    private int _recoveryFailures;
    private int _impostorsRefused;
    private int _environmentChecks;
    private long _committedAfterRecovery;
    private TimeSpan _checking;
    private string? _failure;

    public TimeSpan Elapsed => _elapsed.Elapsed;

    public int Kills
    {
        get
        {
            lock (_gate)
                return _kills;
        }
    }

    /// <summary>The child running now, whose acknowledgements count before it ends.</summary>
    public void SetLive(ChildTranscript? transcript)
    {
        lock (_gate)
            _live = transcript;
    }

    public void RecordRun(ChildRun run, bool killed)
    {
        lock (_gate)
        {
            _live = null;
            if (killed)
                _kills++;
            if (run.Point is { } point)
            {
                string name = point.Split(' ')[0];
                _points[name] = _points.GetValueOrDefault(name) + 1;
            }
            _acknowledged += run.TotalAcknowledged;
            if (run.Launch is { } launch)
                _launches.Add(launch);
            if (run.Opening is { } opening)
                _childOpenings.Add(opening);
            _writing += run.Writing;
            _readerViolations += run.Violations.Count;
        }
    }

    public void RecordChildFailure()
    {
        lock (_gate)
            _childFailures++;
    }

    public void RecordLost(long lost, bool phantom)
    {
        lock (_gate)
        {
            _lost += lost;
            if (phantom)
                _phantoms++;
        }
    }

    public void RecordInspection(InspectionResult result)
    {
        lock (_gate)
        {
            _environmentChecks++;
            _lost += result.Lost;
            _halfApplied += result.HalfApplied;
            if (result.Phantom)
                _phantoms++;
            if (result.VerifyFailed)
                _verifyFailures++;
        }
    }

    public void RecordRecovery(TimeSpan open)
    {
        lock (_gate)
            _recoveries.Add(open);
    }

    public void RecordRecoveryFailure()
    {
        lock (_gate)
            _recoveryFailures++;
    }

    /// <summary>A copy of a journal group's member was refused as a duplicate id, its files unchanged (<see cref="ImpostorMembers"/>).</summary>
    public void RecordImpostorRefused()
    {
        lock (_gate)
            _impostorsRefused++;
    }

    public void RecordCommittedAfterRecovery(long transactions)
    {
        lock (_gate)
            _committedAfterRecovery += transactions;
    }

    /// <summary>Time the parent spent reopening, comparing and working on environments.</summary>
    public void RecordChecking(TimeSpan time)
    {
        lock (_gate)
            _checking += time;
    }

    /// <summary>The campaign stops at its first failure: this says what, where and how to replay it.</summary>
    public void Fail(string failure)
    {
        lock (_gate)
            _failure ??= failure;
    }

    public CampaignFigures Snapshot()
    {
        lock (_gate)
        {
            return new CampaignFigures(_elapsed.Elapsed, _kills, new Dictionary<string, int>(_points), _acknowledged + (_live?.Acknowledged ?? 0),
                _writing, _checking, DurationSummary.Of(_launches), DurationSummary.Of(_childOpenings), DurationSummary.Of(_recoveries), _environmentChecks, _committedAfterRecovery,
                new DurabilityFindings(_lost, _halfApplied, _phantoms, _readerViolations, _verifyFailures, _childFailures, _recoveryFailures),
                _failure, _live?.LastSample) { ImpostorsRefused = _impostorsRefused };
        }
    }
}

/// <summary>A campaign's counts at one moment.</summary>
internal sealed record CampaignFigures(
    TimeSpan Elapsed,
    int Kills,
    IReadOnlyDictionary<string, int> KillsAtPoints,
    long Acknowledged,
    TimeSpan Writing,
    TimeSpan Checking,
    DurationSummary Launches,
    DurationSummary ChildOpenings,
    DurationSummary Recoveries,
    int EnvironmentChecks,
    long CommittedAfterRecovery,
    DurabilityFindings Findings,
    string? Failure,
    SoakSample? LastSample)
{
    /// <summary>Copies of a journal group's members refused at <see cref="StorageEnvironment.OpenBranch"/> as duplicate ids.</summary>
    public int ImpostorsRefused { get; init; }
}
