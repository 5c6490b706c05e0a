using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// Chooses each cycle from the campaign's seeded random numbers, so a seed replays the same workload and the
/// same sequence of choices (the kill moments themselves depend on timing and cannot be replayed exactly).
/// </summary>
internal sealed class CyclePlanner(StressOptions options, long seed)
{
    private static readonly int[] s_groupWritesInFlight = [1, 2, 4];

    private readonly Random _random = new(unchecked((int)seed ^ (int)(seed >> 32)));
    private int _checks;
    private bool _previousUnchecked;

    public CyclePlan Next(int cycle)
    {
        var storage = Storage(StorageSettings.For(options.Storage, _random));
        var (writers, callers) = Mix(options.VaryMix);
        var kill = KillPlan.Choose(_random, options.KillPoints ? Points(storage) : []);
        CheckMode? check = _random.NextDouble() < options.CheckFraction ? NextCheckMode() : null;
        _previousUnchecked = check is null;
        return new CyclePlan(cycle, Child(storage, writers, callers, kill), kill, check);
    }

    /// <summary>The campaign's last run: no kill, stopped cleanly, so the check owes every transaction exactly.</summary>
    public CyclePlan Final(int cycle)
    {
        var (writers, callers) = Mix(options.VaryMix);
        return new CyclePlan(cycle, Child(Storage(StorageSettings.For(options.Storage, _random)), writers, callers, kill: null), null, NextCheckMode());
    }

    /// <summary>A soak run: exactly the writers, callers and readers asked for, flushing (a mixed profile's choice), sampling.</summary>
    public CyclePlan Soak()
    {
        var profile = options.Storage == StorageProfile.Mixed ? StorageProfile.Flushing : options.Storage;
        var (writers, callers) = Mix(vary: false);
        var child = Child(Storage(StorageSettings.For(profile, null)), writers, callers, kill: null) with
        {
            SampleMilliseconds = (int)Math.Max(10, options.SampleInterval.TotalMilliseconds),
        };
        return new CyclePlan(1, child, null, CheckMode.RootFirstAlone);
    }

    /// <summary>
    /// A restart-and-grow round (<see cref="RestartGrowCampaign"/>): a child killed <paramref name="killAfter"/> after it
    /// started, left for the next to recover; then a child that recovers, writes and is stopped cleanly, checked by the
    /// parent. Odd rounds run <see cref="StressOptions.Writers"/> BeginWrite writers alone, even rounds
    /// <see cref="StressOptions.Callers"/> merger callers alone (whichever is not 0, when one is).
    /// </summary>
    public (CyclePlan Killed, CyclePlan Restarted) RestartGrowRound(int round, TimeSpan killAfter)
    {
        var storage = Storage(StorageSettings.For(options.Storage, _random));
        bool merger = options.Writers == 0 || (options.Callers > 0 && round % 2 == 0);
        int[] writers = [merger ? 0 : options.Writers];
        int[] callers = [merger ? options.Callers : 0];
        var kill = new KillPlan(KillMoment.AfterStart, killAfter);
        return (new CyclePlan(round, Child(storage, writers, callers, kill), kill, Check: null),
            new CyclePlan(round, Child(storage, writers, callers, kill: null), null, CheckMode.RootFirstAlone));
    }

    private ChildSettings Child(StorageSettings storage, int[] writers, int[] callers, KillPlan? kill)
        => new(options.Directory, seed, options.Workload, options.Branches, writers, callers, options.Readers, storage,
            kill?.Point, Math.Max(1, kill?.Occurrence ?? 1));

    /// <summary>A journal group's root sends 1, 2 or 4 shared writes at once (unless fixed): a kill may find several in flight.</summary>
    private StorageSettings Storage(StorageSettings storage)
    {
        storage = storage.WithEngine(o => o with { JournalCompressionThresholdBytes = options.JournalCompressionThresholdBytes }).WithLazyCommits(options.LazyCommits);
        return options.Branches == 0 ? storage
            : storage.WithEngine(o => o with { JournalGroupMaxInFlightWrites = options.GroupWritesInFlight ?? s_groupWritesInFlight[_random.Next(s_groupWritesInFlight.Length)] });
    }

    private (int[] Writers, int[] Callers) Mix(bool vary)
    {
        var writers = new int[options.Environments];
        var callers = new int[options.Environments];
        for (int k = 0; k < writers.Length; k++)
        {
            writers[k] = vary ? _random.Next(options.Writers + 1) : options.Writers;
            callers[k] = vary ? _random.Next(options.Callers + 1) : options.Callers;
            if (writers[k] + callers[k] == 0)
            {
                if (options.Writers > 0)
                    writers[k] = 1;
                else
                    callers[k] = 1;
            }
        }
        return (writers, callers);
    }

    /// <summary>Checks take turns between the ways of reopening a group; one environment is always reopened alone.</summary>
    private CheckMode NextCheckMode() => options.Branches == 0 ? CheckMode.RootFirstAlone : (CheckMode)(_checks++ % 3);

    /// <summary>The kill points this cycle's child can reach.</summary>
    private List<KillPoint> Points(StorageSettings storage)
    {
        var points = new List<KillPoint> { KillPoint.JournalCreated };
        if (storage.SyncsWithinARun)
            points.Add(KillPoint.DataFileSynced);
        if (options.Branches > 0)
            points.Add(KillPoint.JournalLinked);
        // Only a child that finds a crashed environment recovers: the previous cycle left it to this one.
        if (_previousUnchecked)
            points.AddRange([KillPoint.RecoveryReplayedJournal, KillPoint.RecoveryCompleted]);
        return points;
    }
}
