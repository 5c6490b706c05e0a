using Cairn.Pal.Testing;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability.CrashImages;

/// <summary>
/// Crash images of a workload of large values (issue 29, item 8): every transaction puts 17 values of 64 KiB, so
/// each journal entry is over a MiB and goes into journals that are not pre-zeroed, each write extending its
/// file. Cut after every durable operation with the unsynced ones dropped, torn or kept at random, and at every
/// journal write also with that write torn in flight (sectors or blocks of the entry, past the file's old end,
/// reached the disk or not), each image must open at the last whole entry: every acknowledged transaction, none
/// half there, and Verify passes.
/// </summary>
public class LargeValueCrashImageTests(ITestOutputHelper output)
{
    private const int Transactions = 10;

    private static StorageOptions Recorded(string path, CapturingLoggerFactory log) => new(path)
    {
        FlushThresholdBytes = 2 << 20,
        MaxFlushDelay = TimeSpan.FromMilliseconds(1),
        SyncInterval = TimeSpan.FromMilliseconds(50),
        InitialJournalFileBytes = 1 << 20,
        MaxJournalFileBytes = 4 << 20,
        LoggerFactory = log,
    };

    private static StorageOptions Quiet(string path) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };

    [Fact]
    public void Every_crash_image_of_large_value_commits_opens_at_the_last_whole_entry()
    {
        if (!OperatingSystem.IsLinux())
            return; // elsewhere every journal is pre-zeroed: CrashImageTests covers it
        using var dir = new TestDirectory("crash-images-large");
        string live = Path.Combine(dir.Path, "live");
        var workload = new LargeValueWorkload();
        var log = new CapturingLoggerFactory();
        var acknowledged = new List<(long Transaction, long OperationsBefore)>();
        IReadOnlyList<PalTracedOperation> operations;
        using (var recording = PalIoRecording.Start(dir.Path))
        {
            using (var env = StorageEnvironment.Open(Recorded(live, log)))
            {
                for (int i = 1; i <= Transactions; i++)
                {
                    workload.Apply(env, i);
                    acknowledged.Add((i, recording.Count));
                    if (i % 4 == 0)
                        env.Checkpoint();
                }
            }
            operations = recording.Operations;
        }
        Assert.Contains(log.Records, r => r.Message.Contains("not pre-zeroed", StringComparison.Ordinal));

        var builder = new CrashImageBuilder(dir.Path, [], operations);
        var random = new Random(20261128);
        var perMode = new Dictionary<CrashMode, int>();
        long images = 0;
        foreach (int point in builder.SyncPoints())
        {
            foreach (var mode in ModesAt(builder, operations, point))
            {
                bool inFlight = mode == CrashMode.TornInFlightWrite;
                // A transaction is acknowledged once its last operation is durable; one whose write is in flight at the cut is not.
                long mustHave = acknowledged.Where(a => inFlight ? a.OperationsBefore - 1 < point : a.OperationsBefore - 1 <= point)
                    .Select(a => a.Transaction).DefaultIfEmpty(0).Max();
                string image = Path.Combine(dir.Path, $"image-{images}");
                Directory.CreateDirectory(image);
                builder.Materialize(point, mode, random, image);
                try
                {
                    using var env = StorageEnvironment.Open(Quiet(Path.Combine(image, "live")));
                    long last = workload.Check(env);
                    Assert.True(last >= mustHave, $"acknowledged transaction {mustHave} lost: the image holds up to {last}");
                    env.Verify();
                    workload.Apply(env, last + 1); // the recovered environment takes a large commit, flushes it and closes cleanly
                    env.Checkpoint();
                    Assert.Equal(last + 1, workload.Check(env));
                    Assert.False(env.HasFailed);
                }
                catch (Exception e)
                {
                    throw new Xunit.Sdk.XunitException($"crash image after operation {point} ({operations[point]}), mode {mode}: {e}");
                }
                Directory.Delete(image, recursive: true);
                images++;
                perMode[mode] = perMode.GetValueOrDefault(mode) + 1;
            }
        }
        output.WriteLine($"{operations.Count} operations, {images} images: " + string.Join(", ", perMode.OrderBy(m => m.Key).Select(m => $"{m.Key} {m.Value}")));
        Assert.True(perMode.GetValueOrDefault(CrashMode.TornInFlightWrite) >= Transactions, "too few journal writes torn in flight");
    }

    private static IEnumerable<CrashMode> ModesAt(CrashImageBuilder builder, IReadOnlyList<PalTracedOperation> operations, int point)
    {
        yield return CrashMode.DropUnsynced;
        if (builder.UnsyncedAt(point) > 0)
            yield return CrashMode.TornSectors;
        if (builder.IsDurableWrite(point) && operations[point].Path.Contains("Journals", StringComparison.Ordinal))
            yield return CrashMode.TornInFlightWrite;
    }
}

/// <summary>
/// Transaction i puts 17 values of 64 KiB under keys (i, j), deletes transaction i − 2's, and records i in the meta
/// tree: the database after transaction L is known exactly.
/// </summary>
internal sealed class LargeValueWorkload
{
    private const int PerTransaction = 17;
    private const int Kept = 2;

    private static byte[] Key(long i, int j) => Bytes.Key(i * 100 + j);

    private static byte[] Value(long i, int j) => Bytes.Value(i * 100 + j, 64 * 1024);

    public void Apply(StorageEnvironment env, long i)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (int j = 0; j < PerTransaction; j++)
            tree.Put(Key(i, j), Value(i, j));
        if (i > Kept)
            for (int j = 0; j < PerTransaction; j++)
                Assert.True(tree.Delete(Key(i - Kept, j)));
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
        Assert.Equal(Math.Min(last, Kept) * PerTransaction, tree.Count);
        for (long i = Math.Max(1, last - Kept + 1); i <= last; i++)
            for (int j = 0; j < PerTransaction; j++)
                Assert.Equal(Value(i, j), tree.Get(Key(i, j)));
        return last;
    }
}
