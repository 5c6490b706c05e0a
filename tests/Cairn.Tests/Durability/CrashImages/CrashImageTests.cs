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
        InitialJournalSize = 32 << 10,
        MaxJournalSize = 64 << 10,
    };

    private static StorageOptions Quiet(string path) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };

    [Fact]
    public void Every_crash_image_of_a_small_workload_holds_every_acknowledged_transaction()
    {
        using var dir = new TestDirectory("crash-images");
        string live = Path.Combine(dir.Path, "live");
        using (StorageEnvironment.Open(Busy(live)))
        {
        }
        var baseline = Directory.GetFiles(live, "*", SearchOption.AllDirectories)
            .ToDictionary(f => Path.GetRelativePath(live, f), File.ReadAllBytes, StringComparer.Ordinal);

        var acknowledged = new List<(long Transaction, long OperationsBefore)>();
        IReadOnlyList<PalTracedOperation> operations;
        using (var recording = PalIoRecording.Start(live))
        {
            var env = StorageEnvironment.Open(Busy(live));
            for (int i = 1; i <= Transactions; i++)
            {
                SmallWorkload.Apply(env, i);
                acknowledged.Add((i, recording.Count));
                if (i == Transactions / 2)
                {
                    env.SimulateProcessCrash();
                    env = StorageEnvironment.Open(Busy(live));
                }
                // Besides what the background thread does on its own: flushes left unsynced, and checkpoints.
                if (i % 3 == 0)
                    env.FlushWithoutSync();
                if (i % 10 == 0)
                    env.Checkpoint();
            }
            env.Dispose();
            operations = recording.Operations;
        }

        var builder = new CrashImageBuilder(live, baseline, operations);
        var points = builder.SyncPoints().ToList();
        var random = new Random(20261122);
        var timer = Stopwatch.StartNew();
        int images = 0, unsyncedSeen = 0;
        foreach (int point in points)
        {
            long mustHave = acknowledged.Where(a => a.OperationsBefore - 1 <= point).Select(a => a.Transaction).DefaultIfEmpty(0).Max();
            unsyncedSeen += builder.UnsyncedAt(point);
            foreach (var mode in new[] { CrashMode.DropUnsynced, CrashMode.TornSectors, CrashMode.TornSectors, CrashMode.RandomSubset, CrashMode.RandomSubset })
            {
                string image = Path.Combine(dir.Path, $"image-{images}");
                Directory.CreateDirectory(image);
                builder.Materialize(point, mode, random, image);
                try
                {
                    using var env = StorageEnvironment.Open(Quiet(image));
                    long last = SmallWorkload.Check(env);
                    Assert.True(last >= mustHave, $"acknowledged transaction {mustHave} lost: the image holds up to {last}");
                    env.Verify();
                }
                catch (Exception e)
                {
                    throw new Xunit.Sdk.XunitException(
                        $"crash image after operation {point} ({operations[point]}), mode {mode}, {builder.UnsyncedAt(point)} unsynced operations: {e}");
                }
                Directory.Delete(image, recursive: true);
                images++;
            }
        }
        output.WriteLine($"{operations.Count} traced operations, {points.Count} sync points, {images} crash images verified " +
            $"({unsyncedSeen} unsynced operations in play over all points) in {timer.Elapsed.TotalSeconds:F1} s");
        output.WriteLine(string.Join(", ", operations.GroupBy(o => (o.Kind, Data: o.Path.EndsWith(StorageEnvironment.DataFileName)))
            .Select(g => $"{g.Key.Kind} {(g.Key.Data ? "data file" : "journals")}: {g.Count()}")));
        // The run exercised what it is meant to: flushes, syncs, journal switches and releases.
        Assert.True(points.Count > 100, $"only {points.Count} sync points");
        Assert.Contains(operations, o => o.Kind == PalTracedKind.Write && !o.Durable && o.Path.EndsWith(StorageEnvironment.DataFileName));
        Assert.Contains(operations, o => o.Kind == PalTracedKind.Sync && o.Path.EndsWith(StorageEnvironment.DataFileName));
        Assert.True(operations.Count(o => o.Kind is PalTracedKind.Create or PalTracedKind.Rename) > 4, "several journal switches");
        Assert.True(unsyncedSeen > points.Count, "flushed pages were often unsynced at a cut");
    }
}

/// <summary>
/// Transaction i puts key i (a few on overflow pages), deletes key i − 6, and records i in the meta
/// tree: the database after transaction L is known exactly.
/// </summary>
internal static class SmallWorkload
{
    public const int Window = 6;

    public static int ValueLength(long i) => i % 7 == 0 ? 12_000 : 50 + (int)(i * 37 % 300);

    public static void Apply(StorageEnvironment env, long i)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(Bytes.Key(i), Bytes.Value(i, ValueLength(i)));
        if (i > Window)
            Assert.True(tree.Delete(Bytes.Key(i - Window)));
        tx.CreateTree("meta").Put("last"u8, Bytes.Key(i));
        tx.Commit();
    }

    /// <summary>Checks the environment holds exactly the database after some transaction L, and returns L.</summary>
    public static long Check(StorageEnvironment env)
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
            Assert.Equal(Bytes.Value(i, ValueLength(i)), tree.Get(Bytes.Key(i)));
        return last;
    }
}
