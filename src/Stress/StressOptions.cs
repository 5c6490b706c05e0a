using System.Diagnostics;

namespace Cairn.Stress;

/// <summary>
/// What a <see cref="StressCampaign"/> (or a <see cref="SoakCampaign"/>) runs: where, for how long, which
/// workload, how many threads of each kind, and how to start the child process.
/// </summary>
public sealed record StressOptions
{
    /// <summary>How long a campaign runs when neither <see cref="Duration"/> nor <see cref="Kills"/> is set.</summary>
    public static readonly TimeSpan DefaultDuration = TimeSpan.FromMinutes(1);

    /// <param name="directory">
    /// The stress directory: absent or empty, or one an earlier campaign of the same seed and workload left (it goes
    /// on from there). One environment lives in it, or with <see cref="Branches"/> a root in <c>root/</c> and branches
    /// in <c>b1/</c>, <c>b2/</c>, …. Put it on the disk to be tested: on tmpfs the figures mean nothing for durability
    /// (the report says so).
    /// </param>
    /// <param name="childStartInfo">
    /// How to start a child: given the child's arguments, a process that passes them unchanged to
    /// <see cref="StressChild.Run(IReadOnlyList{string})"/> (the test suite: <c>dotnet Cairn.TestChild.dll stress-child …</c>;
    /// the tool: itself with a hidden child command). The campaign redirects its standard streams.
    /// </param>
    public StressOptions(string directory, Func<IReadOnlyList<string>, ProcessStartInfo> childStartInfo)
    {
        Directory = directory;
        ChildStartInfo = childStartInfo;
    }

    public string Directory { get; }

    public Func<IReadOnlyList<string>, ProcessStartInfo> ChildStartInfo { get; }

    /// <summary>Seeds the workload and every choice of the campaign (null: a random one, printed and in the report, to replay a failure).</summary>
    public long? Seed { get; init; }

    /// <summary>Start no new kill cycle after this long (a soak run: its length). With <see cref="Kills"/>, whichever comes first.</summary>
    public TimeSpan? Duration { get; init; }

    /// <summary>Stop after this many kills (a soak run ignores it).</summary>
    public int? Kills { get; init; }

    /// <summary>0: one environment. More: a root and this many branches sharing its journal (<see cref="StorageEnvironment.OpenBranch"/>).</summary>
    public int Branches { get; init; }

    /// <summary>Threads committing through <c>BeginWrite</c>/<c>Commit</c>, per environment (at most, with <see cref="VaryMix"/>).</summary>
    public int Writers { get; init; } = 1;

    /// <summary>Callers looping on <c>WriteAsync</c> (the transaction merger), per environment (at most, with <see cref="VaryMix"/>).</summary>
    public int Callers { get; init; } = 8;

    /// <summary>Threads checking snapshot invariants while the others write, per environment.</summary>
    public int Readers { get; init; } = 1;

    /// <summary>
    /// Each kill cycle picks, per environment, 0..<see cref="Writers"/> writers and 0..<see cref="Callers"/> callers
    /// (at least one of either), so kills find every mix. False: exactly those numbers every cycle (always for a soak run).
    /// </summary>
    public bool VaryMix { get; init; } = true;

    public WorkloadShape Workload { get; init; } = new();

    public StorageProfile Storage { get; init; } = StorageProfile.Mixed;

    /// <summary>With branches: the root's shared journal writes in flight at once (null: 1, 2 or 4, chosen per cycle).</summary>
    public int? GroupWritesInFlight { get; init; }

    /// <summary>Every environment compresses journal entries of at least this many bytes (<see cref="StorageOptions.JournalCompressionThresholdBytes"/>; null: never).</summary>
    public int? JournalCompressionThresholdBytes { get; init; }

    /// <summary>
    /// The <c>BeginWrite</c> writers commit three transactions in four lazily (<see cref="CommitMode.Lazy"/>) and
    /// acknowledge each once the journal holds it: a kill must find a prefix of the commit order.
    /// </summary>
    public bool LazyCommits { get; init; }

    /// <summary>One kill in five lands at a named point inside the engine (journal switch, data-file sync, branch link, recovery) instead of at a random moment.</summary>
    public bool KillPoints { get; init; } = true;

    /// <summary>
    /// The share of kills after which the parent reopens and checks; after the others the next child recovers the
    /// environments itself, so recovery runs in a process that can be killed too.
    /// </summary>
    public double CheckFraction { get; init; } = 0.75;

    /// <summary>Transactions the parent commits into each environment it checked, then checkpoints and verifies: a recovered environment must work, not only read.</summary>
    public int CommitsAfterRecovery { get; init; } = 25;

    /// <summary>How long to wait for a child's line or its exit before counting it as failed.</summary>
    public TimeSpan ChildTimeout { get; init; } = TimeSpan.FromMinutes(1);

    /// <summary>Where to print a progress line every <see cref="ProgressInterval"/> (null: nowhere).</summary>
    public TextWriter? Progress { get; init; }

    public TimeSpan ProgressInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>A soak run: how often the child measures itself.</summary>
    public TimeSpan SampleInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>A soak run fails if the resident set's peak in its last third exceeds this times its peak in the middle third, plus the slack.</summary>
    public double SoakGrowthRatio { get; init; } = 1.2;

    /// <summary>
    /// Added to the allowed peak (with, per environment, the flush threshold, which scratch memory may legitimately
    /// swing up to between flushes).
    /// </summary>
    public long SoakGrowthSlackBytes { get; init; } = 64L << 20;

    internal TimeSpan EffectiveDuration => Duration ?? (Kills is null ? DefaultDuration : TimeSpan.MaxValue);

    internal int Environments => Branches + 1;

    /// <summary>Throws <see cref="ArgumentException"/> naming the first option out of range.</summary>
    public void Validate()
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(Directory, nameof(Directory));
        ArgumentNullException.ThrowIfNull(ChildStartInfo, nameof(ChildStartInfo));
        Require(Duration is null || Duration > TimeSpan.Zero, nameof(Duration), "positive");
        Require(Kills is null or >= 1, nameof(Kills), "at least 1");
        Require(Branches is >= 0 and <= 1000, nameof(Branches), "0..1000");
        Require(Writers is >= 0 and <= 1000 && Callers is >= 0 and <= 100_000 && Writers + Callers > 0, nameof(Writers),
            "0..1000, with Callers 0..100,000 and at least one writer or caller");
        Require(Readers is >= 0 and <= 1000, nameof(Readers), "0..1000");
        Require(GroupWritesInFlight is null or >= 1 and <= 16, nameof(GroupWritesInFlight), "1..16");
        Require(JournalCompressionThresholdBytes is null or > 0, nameof(JournalCompressionThresholdBytes), "positive");
        Require(CheckFraction is > 0 and <= 1, nameof(CheckFraction), "in (0, 1]");
        Require(CommitsAfterRecovery >= 0, nameof(CommitsAfterRecovery), "0 or more");
        Require(ChildTimeout > TimeSpan.Zero && ProgressInterval > TimeSpan.Zero && SampleInterval >= TimeSpan.FromMilliseconds(10),
            nameof(ChildTimeout), "positive (and SampleInterval at least 10 ms)");
        Require(SoakGrowthRatio >= 1 && SoakGrowthSlackBytes >= 0, nameof(SoakGrowthRatio), "at least 1 (and the slack not negative)");
        Workload.Validate();
    }

    private static void Require(bool ok, string name, string range)
    {
        if (!ok)
            throw new ArgumentException($"stress options: {name} must be {range}", name);
    }
}
