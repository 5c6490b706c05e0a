using System.Diagnostics;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability.CrashImages;

/// <summary>
/// Every disk state a power loss could leave during a small workload: the PAL's I/O trace of the run
/// (commits, background flushes and syncs, journal switches, deletions and reuse, a crash and its
/// recovery, a clean close) is cut after every operation that made something durable, and the
/// operations not yet durable there are dropped, torn at 512-byte sectors, or kept at random. Each
/// image must open and hold every transaction acknowledged before the cut, a prefix with no holes
/// and nothing half-applied, and pass Verify.
/// </summary>
public class CrashImageTests(ITestOutputHelper output)
{
    private const int Transactions = 80;

    private static StorageOptions Busy(string path) => new(path)
    {
        FlushThresholdBytes = 48 << 10,
        MaxFlushDelay = TimeSpan.FromMilliseconds(1),
        SyncInterval = TimeSpan.FromMilliseconds(50),
        InitialJournalFileBytes = 32 << 10,
        MaxJournalFileBytes = 64 << 10,
    };

    private static StorageOptions Quiet(string path) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };

    /// <summary>
    /// The campaign size: <c>CAIRN_CRASH_IMAGE_ROUNDS</c> rounds (default 1, what CI runs), each a workload with
    /// its own seed, value sizes and a crash at a different transaction. A round gives about 1,000 images.
    /// </summary>
    private static int Rounds => int.TryParse(System.Environment.GetEnvironmentVariable("CAIRN_CRASH_IMAGE_ROUNDS"), out int n) && n > 0 ? n : 1;

    /// <summary><c>CAIRN_CRASH_IMAGE_FIRST_ROUND</c> (default 0): where the rounds start, so a campaign can go on past one already run.</summary>
    private static int FirstRound => int.TryParse(System.Environment.GetEnvironmentVariable("CAIRN_CRASH_IMAGE_FIRST_ROUND"), out int n) && n >= 0 ? n : 0;

    [Fact]
    public void Every_crash_image_of_a_small_workload_holds_every_acknowledged_transaction()
    {
        var totals = new CampaignTotals();
        for (int round = FirstRound; round < FirstRound + Rounds; round++)
            RunRound(round, totals);
        output.WriteLine($"{Rounds} round(s) from round {FirstRound}: {totals.Operations} traced operations, {totals.Points} cut points, {totals.Images} crash images verified, " +
            $"0 violations, in {totals.Timer.Elapsed.TotalSeconds:F1} s");
        output.WriteLine(string.Join(", ", totals.Kinds.OrderBy(k => k.Key).Select(k => $"{k.Key}: {k.Value}")));
        // Every round exercised what it is meant to: creation, growth, flushes, header syncs, journal switches and releases.
        foreach (var kind in new[] { "Create data file", "Extend data file", "Write data file", "Sync data file", "Rename data file",
                     "Create journals", "Rename journals", "Delete journals" })
            Assert.True(totals.Kinds.GetValueOrDefault(kind) >= Rounds, $"no '{kind}' in some round: {string.Join(", ", totals.Kinds)}");
        // Creation allocates once per round; growth while the workload runs must come on top of that.
        Assert.True(totals.Kinds.GetValueOrDefault("Extend data file") >= 2 * Rounds, $"the data file never grew: {string.Join(", ", totals.Kinds)}");
    }

    private sealed class CampaignTotals
    {
        public long Operations, Points, Images;
        public readonly Dictionary<string, int> Kinds = [];
        public readonly Stopwatch Timer = Stopwatch.StartNew();
    }

    private void RunRound(int round, CampaignTotals totals)
    {
        using var dir = new TestDirectory("crash-images");
        string live = Path.Combine(dir.Path, "live");
        // A large value every 5th to 8th transaction: with keys alive for Window transactions, one or two are alive at once, so
        // the data file grows past its first 256 KiB while the run is recorded and a cut can land in the middle of a growth.
        var workload = new SmallWorkload(large: 5 + round % 4);
        int crashAt = Transactions / 2 + round % 17 - 8;
        var acknowledged = new List<(long Transaction, long OperationsBefore)>();
        IReadOnlyList<PalTracedOperation> operations;
        // Recorded from before the environment exists: its creation is cut like everything else.
        using (var recording = PalIoRecording.Start(dir.Path))
        {
            var env = StorageEnvironment.Open(Busy(live));
            for (int i = 1; i <= Transactions; i++)
            {
                workload.Apply(env, i);
                acknowledged.Add((i, recording.Count));
                if (i == crashAt)
                {
                    env.ForTestingPurposesOnly().SimulateProcessCrash();
                    env = StorageEnvironment.Open(Busy(live));
                }
                // Besides what the background thread does on its own: flushes left unsynced, and checkpoints.
                if (i % 3 == 0)
                    env.ForTestingPurposesOnly().FlushWithoutSync();
                if (i % 10 == 0)
                    env.Checkpoint();
            }
            env.Dispose();
            operations = recording.Operations;
        }

        var builder = new CrashImageBuilder(dir.Path, [], operations);
        var points = builder.SyncPoints().ToList();
        var random = new Random(20261122 + round);
        int unsyncedSeen = 0, pointsWithUnsynced = 0;
        foreach (int point in points)
        {
            long mustHave = acknowledged.Where(a => a.OperationsBefore - 1 <= point).Select(a => a.Transaction).DefaultIfEmpty(0).Max();
            unsyncedSeen += builder.UnsyncedAt(point);
            if (builder.UnsyncedAt(point) > 0)
                pointsWithUnsynced++;
            foreach (var mode in new[] { CrashMode.DropUnsynced, CrashMode.TornSectors, CrashMode.TornSectors, CrashMode.RandomSubset, CrashMode.RandomSubset })
            {
                string image = Path.Combine(dir.Path, $"image-{totals.Images}");
                Directory.CreateDirectory(image);
                builder.Materialize(point, mode, random, image);
                string envImage = Path.Combine(image, "live");
                try
                {
                    // A cut before the creation was durable leaves no environment, or part of one: open must make a new one then.
                    using var env = StorageEnvironment.Open(Quiet(envImage));
                    long last = workload.Check(env);
                    Assert.True(last >= mustHave, $"acknowledged transaction {mustHave} lost: the image holds up to {last}");
                    env.Verify();
                    // The recovered environment takes writes, flushes them and closes cleanly, not only reads.
                    for (long i = last + 1; i <= last + 2; i++)
                        workload.Apply(env, i);
                    env.Checkpoint();
                    Assert.Equal(last + 2, workload.Check(env));
                    env.Verify();
                    Assert.False(env.HasFailed);
                }
                catch (Exception e)
                {
                    throw new Xunit.Sdk.XunitException(
                        $"round {round}, crash image after operation {point} ({operations[point]}), mode {mode}, {builder.UnsyncedAt(point)} unsynced operations: {e}");
                }
                Directory.Delete(image, recursive: true);
                totals.Images++;
            }
        }
        totals.Operations += operations.Count;
        totals.Points += points.Count;
        foreach (var group in operations.GroupBy(o => $"{o.Kind} {(Path.GetFileName(o.Path).StartsWith(StorageEnvironment.DataFileName) ? "data file" : "journals")}"))
            totals.Kinds[group.Key] = totals.Kinds.GetValueOrDefault(group.Key) + group.Count();
        Assert.True(points.Count > 100, $"only {points.Count} sync points");
        output.WriteLine($"round {round}: {operations.Count} operations, {points.Count} points, {pointsWithUnsynced} of them with unsynced " +
            $"operations ({unsyncedSeen} in all), {totals.Timer.Elapsed.TotalSeconds:F1} s");
        // How many depends on when the background thread syncs (a loaded machine changes it), but every third
        // transaction's FlushWithoutSync leaves written pages unsynced until the next sync, and the next commit's
        // journal write is a cut point: some cuts must see them, however the background thread is scheduled.
        Assert.True(pointsWithUnsynced > 0, "no cut saw an unsynced operation: the images test nothing but synced states");
    }
}

/// <summary>
/// Transaction i puts key i (a few on overflow pages, and every <c>large</c>-th one a value of 150 KB, so
/// the data file grows while the run is recorded), deletes key i − 6, and records i in the meta tree: the
/// database after transaction L is known exactly. Workloads with different <c>salt</c> put different values,
/// so environments that run one each cannot pass for one another.
/// </summary>
internal sealed class SmallWorkload(int large = 0, int salt = 0)
{
    public const int Window = 6;

    public int ValueLength(long i) => large > 0 && i % large == 0 ? 150_000 : i % 7 == 0 ? 12_000 : 50 + (int)(i * 37 % 300);

    private byte[] Value(long i) => Bytes.Value(salt * 1_000_000L + i, ValueLength(i));

    public void Apply(StorageEnvironment env, long i)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(Bytes.Key(i), Value(i));
        if (i > Window)
            Assert.True(tree.Delete(Bytes.Key(i - Window)));
        tx.CreateTree("meta").Put("last"u8, Bytes.Key(i));
        tx.Commit();
    }

    /// <summary>Checks the environment holds exactly the database after some transaction L, and returns L.</summary>
    public long Check(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        if (!tx.TryOpenTree("meta", out var meta))
        {
            Assert.False(tx.TryOpenTree("t", out _), "tree t exists without meta");
            return 0;
        }
        long last = System.Buffers.Binary.BinaryPrimitives.ReadInt64BigEndian(meta.Get("last"u8));
        var tree = tx.OpenTree("t");
        Assert.Equal(Math.Min(last, Window), tree.Count);
        for (long i = Math.Max(1, last - Window + 1); i <= last; i++)
            Assert.Equal(Value(i), tree.Get(Bytes.Key(i)));
        return last;
    }
}
