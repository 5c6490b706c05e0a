using System.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Sharing;
using Cairn.Tests.Support;
using Microsoft.Extensions.Logging;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace Cairn.Tests.Durability.CrashImages;

/// <summary>
/// Every disk state a power loss could leave while a root and two branches share the root's journal: the
/// PAL's I/O trace of a scripted run is cut after every operation that made something durable (and, at
/// every journal write, during it: the write torn), and each image must let every environment open alone,
/// root first or branches first, with every transaction it acknowledged before the cut, nothing half
/// applied, and Verify passing; each then takes writes, checkpoints and closes. The run covers (i) a
/// branch's first entry in a root file (link + directory sync before the commit returns), (ii) the root
/// switching files and the branches linking the next one, shared writes carrying entries of two
/// environments, (iii) one branch checkpointing (flush, sync, its links deleted, the deletions unsynced)
/// while the root and the other branch keep their names of the same files, a branch crashing and coming
/// back while the root goes on, the root recycling a file only it still names and branches linking it in
/// its new life, the root deleting its names while branches keep theirs, and a branch closing cleanly.
/// </summary>
/// <remarks>
/// <c>CAIRN_SHARED_CRASH_IMAGE_ROUNDS</c> (default 1) runs more rounds, each with its own random choices
/// for the torn images and every image's opening order shifted.
/// </remarks>
public sealed class SharedJournalCrashImageTests(ITestOutputHelper output)
{
    private const int Root = 0;
    private static readonly string[] Names = ["root", "a", "b"];

    /// <summary>
    /// The recorded run's options: nothing is flushed behind the script's back (it checkpoints where it says
    /// so), and a small first journal that doubles as files fill, far below journal pressure, so the root
    /// switches files every few commits.
    /// </summary>
    /// <remarks>
    /// The root prepares no spare journals: its spare slots stay free for the files it recycles, so a recycled
    /// file (stale entries of every environment in it) goes back into service and gets linked by branches.
    /// </remarks>
    private static StorageOptions Recorded(string path, bool root = false) => new(path)
    {
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        InitialJournalFileBytes = 32 << 10,
        MaxJournalFileBytes = 1L << 30,
        PrepareSpareJournals = !root,
        // One group write at a time, so the recorded I/O is one order; writes in flight together are covered by
        // the process-kill test and by SharedJournalRecoveryTests.
        JournalGroupMaxInFlightWrites = 1,
    };

    /// <summary>Each image's environments open with these: no background flush, small journals (each open writes a new one).</summary>
    private static StorageOptions Quiet(string path, ILoggerFactory log) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        InitialJournalFileBytes = 64 << 10,
        LoggerFactory = log,
    };

    private const int TornTailEvent = 1103;
    private const int SharedTornTailEvent = 1105;

    private static int Rounds => int.TryParse(System.Environment.GetEnvironmentVariable("CAIRN_SHARED_CRASH_IMAGE_ROUNDS"), out int n) && n > 0 ? n : 1;

    [Fact]
    public void Every_crash_image_of_a_root_and_two_branches_holds_what_each_acknowledged()
    {
        var timer = Stopwatch.StartNew();
        long images = 0, opened = 0;
        for (int round = 0; round < Rounds; round++)
        {
            using var dir = new TestDirectory("shared-crash-images");
            var run = Record(dir.Path);
            if (round == 0)
                output.WriteLine(run.Describe());
            run.AssertCovered();
            var (roundImages, roundOpened, modes) = CheckImages(dir.Path, run, round);
            images += roundImages;
            opened += roundOpened;
            output.WriteLine($"round {round}: {run.Operations.Count} traced operations, {modes}, {timer.Elapsed.TotalSeconds:F1} s");
        }
        output.WriteLine($"{Rounds} round(s): {images} crash images, {opened} environments opened alone and checked, 0 violations, in {timer.Elapsed.TotalSeconds:F1} s");
    }

    /// <summary>Runs the script with the I/O recorded from before the environments exist.</summary>
    private static RecordedRun Record(string directory)
    {
        string[] paths = [.. Names.Select(name => Path.Combine(directory, "live", name))];
        using var recording = PalIoRecording.Start(directory);
        var run = new RecordedRun(recording, paths);
        var script = new GroupScript(run, paths);
        script.Play();
        run.Finish(recording);
        return run;
    }

    /// <summary>
    /// Builds the images of <paramref name="run"/> and checks each; returns how many images, how many
    /// environments opened, and the images per mode.
    /// </summary>
    private static (long Images, long Opened, string Modes) CheckImages(string directory, RecordedRun run, int round)
    {
        var builder = new CrashImageBuilder(directory, [], run.Operations);
        var random = new Random(20261125 + round);
        var perMode = new Dictionary<CrashMode, int>();
        long images = 0, opened = 0, tornTails = 0;
        foreach (int point in builder.SyncPoints())
        {
            foreach (var mode in ModesAt(builder, run, point))
            {
                string image = Path.Combine(directory, $"image-{images}");
                Directory.CreateDirectory(image);
                builder.Materialize(point, mode, random, image);
                // Root first in every other image, branches first in the others.
                int[] order = (images + round) % 2 == 0 ? [0, 1, 2] : [1, 2, 0];
                foreach (int k in order)
                {
                    bool inFlight = mode == CrashMode.TornInFlightWrite;
                    long mustHave = run.MustHave(k, point, inFlight), mayHave = run.MayHave(k, point);
                    try
                    {
                        tornTails += CheckAlone(Path.Combine(image, "live", Names[k]), run.Workloads[k], mustHave, mayHave);
                    }
                    catch (Exception e)
                    {
                        throw new XunitException($"round {round}, crash image {images} after operation {point} ({run.Operations[point]}), mode {mode}, " +
                            $"{builder.UnsyncedAt(point)} unsynced operations, opening order {string.Join(", ", order.Select(o => Names[o]))}: " +
                            $"{Names[k]} (must hold {mustHave}, may hold up to {mayHave}): {e}");
                    }
                    opened++;
                }
                Directory.Delete(image, recursive: true);
                images++;
                perMode[mode] = perMode.GetValueOrDefault(mode) + 1;
            }
        }
        string modes = $"{images} images (" + string.Join(", ", perMode.OrderBy(m => m.Key).Select(m => $"{m.Key} {m.Value}")) + $"), {tornTails} torn journal tails recovered";
        return (images, opened, modes);
    }

    /// <summary>
    /// Every cut with its unsynced operations dropped; where some are unsynced, also torn and kept at random;
    /// at a journal write, also that write torn in flight.
    /// </summary>
    private static IEnumerable<CrashMode> ModesAt(CrashImageBuilder builder, RecordedRun run, int point)
    {
        yield return CrashMode.DropUnsynced;
        if (builder.UnsyncedAt(point) > 0)
        {
            yield return CrashMode.TornSectors;
            yield return CrashMode.RandomSubset;
        }
        if (builder.IsDurableWrite(point) && run.IsJournal(run.Operations[point].Path))
            yield return CrashMode.TornInFlightWrite;
    }

    /// <summary>
    /// Opens one environment of an image alone and checks it, then makes it take writes, checkpoint and close.
    /// Returns the torn journal tails its recovery met (cut off, or left in a file other environments name).
    /// </summary>
    private static int CheckAlone(string path, SmallWorkload workload, long mustHave, long mayHave)
    {
        var log = new CapturingLoggerFactory();
        using var env = StorageEnvironment.Open(Quiet(path, log));
        long last = workload.Check(env);
        Assert.True(last >= mustHave, $"acknowledged transaction {mustHave} lost: the image holds up to {last}");
        Assert.True(last <= mayHave, $"the image holds transaction {last}, but only {mayHave} had begun");
        env.Verify();
        workload.Apply(env, last + 1);
        workload.Apply(env, last + 2);
        env.Checkpoint();
        Assert.Equal(last + 2, workload.Check(env));
        env.Verify();
        Assert.False(env.HasFailed);
        return log.WithEventId(TornTailEvent).Count() + log.WithEventId(SharedTornTailEvent).Count();
    }

    private static bool IsJournalName(string path) => JournalFileName.TryParse(Path.GetFileName(path), out _);

    /// <summary>What was committed when, in the trace's terms, and the trace itself once the run is over.</summary>
    private sealed class RecordedRun(PalIoRecording recording, string[] paths)
    {
        private readonly List<Commit> _commits = [];
        private readonly Dictionary<string, int> _events = [];

        public SmallWorkload[] Workloads { get; } = [.. Enumerable.Range(0, Names.Length).Select(k => new SmallWorkload(salt: k + 1))];

        public IReadOnlyList<PalTracedOperation> Operations { get; private set; } = [];

        /// <summary>Operations recorded so far: the index the next one gets.</summary>
        public long Now => recording.Count;

        /// <summary>The operations recorded so far, while the run goes on.</summary>
        public IReadOnlyList<PalTracedOperation> SoFar => recording.Operations;

        public void Add(int env, long transaction, long startedAt, long acknowledgedAt)
        {
            lock (_commits)
                _commits.Add(new Commit(env, transaction, startedAt, acknowledgedAt));
        }

        public void Note(string what)
        {
            lock (_events)
                _events[what] = _events.GetValueOrDefault(what) + 1;
        }

        public void Finish(PalIoRecording finished) => Operations = finished.Operations;

        public bool IsJournal(string path) => Path.GetFileName(Path.GetDirectoryName(path)) == JournalFileName.DirectoryName;

        /// <summary>
        /// The last transaction of environment <paramref name="env"/> acknowledged by a cut after operation
        /// <paramref name="point"/> (its commit returned when no later operation had been recorded), or, for a
        /// crash during that operation (<paramref name="inFlight"/>), before it completed.
        /// </summary>
        public long MustHave(int env, int point, bool inFlight)
            => _commits.Where(c => c.Env == env && (inFlight ? c.AcknowledgedAt <= point : c.AcknowledgedAt - 1 <= point))
                .Select(c => c.Transaction).DefaultIfEmpty(0).Max();

        /// <summary>The last transaction of environment <paramref name="env"/> whose commit began by operation <paramref name="point"/>.</summary>
        public long MayHave(int env, int point)
            => _commits.Where(c => c.Env == env && c.StartedAt <= point).Select(c => c.Transaction).DefaultIfEmpty(0).Max();

        /// <summary>
        /// The trace holds what the images are meant to cut through: several root files, each branch linking
        /// several of them (each link with its directory sync), each environment deleting names of its own, and
        /// writes carrying two environments' entries (the script itself checks the rest as it goes).
        /// </summary>
        public void AssertCovered()
        {
            Assert.True(Count(o => o.Kind is PalTracedKind.Create or PalTracedKind.Rename && In(o.OtherPath ?? o.Path, Root) && IsJournalName(o.OtherPath ?? o.Path)) >= 3,
                $"the root did not switch journal files twice: {Describe()}");
            for (int k = 0; k < Names.Length; k++)
            {
                Assert.True(Count(o => o.Kind == PalTracedKind.Delete && In(o.Path, k)) >= 1, $"{Names[k]} deleted no journal name: {Describe()}");
                if (k == Root)
                    continue;
                Assert.True(Count(o => o.Kind == PalTracedKind.Link && In(o.OtherPath!, k)) >= 3, $"{Names[k]} linked fewer than three root files: {Describe()}");
                Assert.True(Count(o => o.Kind == PalTracedKind.SyncDirectory && o.Path == Dir(k)) >= 3, $"{Names[k]}'s links were not synced: {Describe()}");
            }
            Assert.True(_events.GetValueOrDefault("shared writes of 2 entries") >= 10, $"too few shared writes: {Describe()}");
        }

        private string Dir(int k) => Path.Combine(paths[k], JournalFileName.DirectoryName);

        private int Count(Func<PalTracedOperation, bool> match) => Operations.Count(match);

        private bool In(string path, int k) => Path.GetDirectoryName(path) == Dir(k);

        /// <summary>What the run did, from its trace: links, switches, recycling, deletions.</summary>
        public string Describe()
        {
            return $"{Operations.Count} operations; commits: {string.Join(", ", Enumerable.Range(0, Names.Length).Select(k => $"{Names[k]} {_commits.Count(c => c.Env == k)}"))}; " +
                $"root journals created {Count(o => o.Kind == PalTracedKind.Create && In(o.Path, Root) && o.Path.EndsWith(JournalFileName.Extension))}, " +
                $"renamed into service {Count(o => o.Kind == PalTracedKind.Rename && In(o.Path, Root) && o.OtherPath!.EndsWith(JournalFileName.Extension))}; " +
                $"links made: a {Count(o => o.Kind == PalTracedKind.Link && In(o.OtherPath!, 1))}, b {Count(o => o.Kind == PalTracedKind.Link && In(o.OtherPath!, 2))}; " +
                $"spares prepared: {string.Join(", ", Enumerable.Range(0, Names.Length).Select(k => $"{Names[k]} {Count(o => o.Kind == PalTracedKind.Create && In(o.Path, k) && !o.Path.EndsWith(JournalFileName.Extension))}"))}; " +
                $"journal names deleted: {string.Join(", ", Enumerable.Range(0, Names.Length).Select(k => $"{Names[k]} {Count(o => o.Kind == PalTracedKind.Delete && In(o.Path, k))}"))}; " +
                string.Join(", ", _events.OrderBy(e => e.Key).Select(e => $"{e.Key} {e.Value}"));
        }

        private readonly record struct Commit(int Env, long Transaction, long StartedAt, long AcknowledgedAt);
    }

    /// <summary>The scripted run: a root and two branches, commits alone and together, checkpoints, a branch crash, a clean close.</summary>
    private sealed class GroupScript(RecordedRun run, string[] paths)
    {
        private readonly StorageEnvironment?[] _envs = new StorageEnvironment?[Names.Length];
        private readonly long[] _last = new long[Names.Length];

        public void Play()
        {
            _envs[Root] = StorageEnvironment.Open(Recorded(paths[Root], root: true));
            _envs[1] = _envs[Root]!.OpenBranch(Recorded(paths[1]));
            _envs[2] = _envs[Root]!.OpenBranch(Recorded(paths[2]));
            try
            {
                // (i) Each environment's first entries in the root's first file: the branches link it before their commits return.
                Rounds(1);
                Assert.True(PalFileSystem.SameFile(Assert.Single(Journals(Root)), Assert.Single(Journals(1))));
                Assert.True(PalFileSystem.SameFile(Journals(Root)[0], Assert.Single(Journals(2))));
                Rounds(2);

                // (ii) Shared writes of two environments (one holds the write while the others queue), until the root has switched files twice and the branches linked the new ones.
                for (int r = 0; Journals(Root).Length < 3 || r < 6; r++)
                {
                    Together(leader: r % 3);
                    Assert.True(r < 200, "the root never switched journal files");
                }
                Assert.True(Journals(1).Length >= 2 && Journals(2).Length >= 2, "the branches did not link the root's next files");

                // (iii) Branch a checkpoints: its links go (unsynced deletions) while the root and b keep their names of the same files.
                string[] rootNames = Journals(Root), bNames = Journals(2);
                Checkpoint(1);
                Assert.Single(Journals(1)); // the one in service stays
                Assert.Equal(rootNames, Journals(Root));
                Assert.Equal(bNames, Journals(2));
                Rounds(2);
                Together(leader: 1);
                Together(leader: 2);

                // Branch a crashes and comes back while the root goes on: it recovers from its links and takes its newest one back.
                _envs[1]!.ForTestingPurposesOnly().SimulateProcessCrash();
                run.Note("branch crashed and reopened");
                _envs[1] = _envs[Root]!.OpenBranch(Recorded(paths[1]));
                Rounds(2);
                Together(leader: 0);

                // Branches first, then the root: the root is the last name of its older files and recycles them;
                // the next switches put one back in service, stale bytes and all, and the branches link it.
                Checkpoint(1);
                Checkpoint(2);
                Checkpoint(Root);
                for (int r = 0; r < 4 || !RecycledFileLinked(); r++)
                {
                    Together(leader: r % 3);
                    Assert.True(r < 200, "no recycled root journal was linked by a branch");
                }

                // The root deletes its names while both branches keep theirs.
                Checkpoint(Root);
                Rounds(2);
                Together(leader: 2);

                // Branch b closes cleanly (flush, sync, every link of it deleted); the others crash.
                _envs[2]!.Dispose();
                _envs[2] = null;
                run.Note("branch closed cleanly");
                Rounds(2);
            }
            finally
            {
                for (int k = Names.Length - 1; k >= 0; k--)
                    _envs[k]?.ForTestingPurposesOnly().SimulateProcessCrash();
            }
        }

        private string[] Journals(int k)
            => [.. Directory.GetFiles(Path.Combine(paths[k], JournalFileName.DirectoryName), "*" + JournalFileName.Extension).Order(StringComparer.Ordinal)];

        /// <summary>
        /// Whether a root journal released as a recyclable file (renamed away from its journal name, not a spare
        /// prepared with zeros) went back into service under a new journal name and was then linked by a branch.
        /// </summary>
        private bool RecycledFileLinked()
        {
            var recycled = new HashSet<string>(StringComparer.Ordinal);
            var reused = new HashSet<string>(StringComparer.Ordinal);
            foreach (var op in run.SoFar)
            {
                if (op.Kind == PalTracedKind.Rename && IsJournalName(op.Path) && !IsJournalName(op.OtherPath!))
                    recycled.Add(op.OtherPath!);
                else if (op.Kind == PalTracedKind.Rename && recycled.Contains(op.Path) && IsJournalName(op.OtherPath!))
                    reused.Add(op.OtherPath!);
                else if (op.Kind == PalTracedKind.Link && reused.Contains(op.Path))
                    return true;
            }
            return false;
        }

        private void Rounds(int count)
        {
            for (int r = 0; r < count; r++)
                for (int k = 0; k < Names.Length; k++)
                    if (_envs[k] is not null)
                        Commit(k);
        }

        private void Checkpoint(int k)
        {
            _envs[k]!.Checkpoint();
            run.Note($"{Names[k]} checkpointed");
        }

        private void Commit(int k)
        {
            long i = ++_last[k];
            long started = run.Now;
            run.Workloads[k].Apply(_envs[k]!, i);
            run.Add(k, i, started, run.Now);
        }

        /// <summary>
        /// One environment's commit holds the group's write while the others queue, so they go together in the
        /// next write: one vectored write carrying two environments' entries.
        /// </summary>
        private void Together(int leader)
        {
            if (_envs[leader] is null)
                leader = Root;
            var others = Enumerable.Range(0, Names.Length).Where(k => k != leader && _envs[k] is not null).Select(k => (Action)(() => Commit(k))).ToArray();
            foreach (int entries in HeldGroupWrite.Together(_envs[Root]!, () => Commit(leader), others))
                if (entries > 1)
                    run.Note($"shared writes of {entries} entries");
        }
    }
}
