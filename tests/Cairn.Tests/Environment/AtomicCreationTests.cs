using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// A data file appears under its name only complete (formatted under a temporary name, synced, renamed),
/// so an empty or headerless one is damage, never a new environment; what an interrupted creation left is
/// thrown away by the next one. Crashes at every step of creation are cut by <c>CrashImageTests</c>.
/// </summary>
public class AtomicCreationTests
{
    private static string DataPath(TestDirectory dir) => Path.Combine(dir.Path, StorageEnvironment.DataFileName);

    private static string TemporaryPath(TestDirectory dir) => DataPath(dir) + ".creating";

    [Fact]
    public void A_data_file_truncated_to_nothing_is_refused_not_taken_for_a_new_environment()
    {
        using var dir = new TestDirectory("create-truncated");
        Populate(dir.Path, 400);
        File.WriteAllBytes(DataPath(dir), []);

        var error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Equal(DataPath(dir), error.FilePath);
        Assert.Contains("the data file is empty", error.Message);
        // Refusing changed nothing: the file is still empty (not formatted over) for whoever investigates.
        Assert.Equal(0, new FileInfo(DataPath(dir)).Length);
    }

    [Fact]
    public void A_data_file_shorter_than_its_two_headers_is_refused()
    {
        using var dir = new TestDirectory("create-short");
        Populate(dir.Path, 10);
        var bytes = File.ReadAllBytes(DataPath(dir));
        File.WriteAllBytes(DataPath(dir), bytes.AsSpan(0, StorageConstants.PageSize + 100).ToArray());

        var error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Equal(DataPath(dir), error.FilePath);
        Assert.Equal(StorageConstants.PageSize + 100, error.Offset);
        Assert.Contains("cannot hold its two", error.Message);
    }

    [Fact]
    public void A_new_environment_leaves_no_temporary_file_and_both_header_copies_valid()
    {
        using var dir = new TestDirectory("create-new");
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
            env.Verify();
        Assert.False(File.Exists(TemporaryPath(dir)));
        var bytes = File.ReadAllBytes(DataPath(dir));
        Assert.Equal(0, bytes.Length % StorageConstants.PageSize);
        Assert.True(bytes.Length >= 4 * StorageConstants.PageSize);
        // Either copy alone opens it: damage one, then the other (each open repairs the damaged copy).
        foreach (long offset in new long[] { 40, StorageConstants.PageSize + 40 })
        {
            FlipByte(DataPath(dir), offset);
            using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
            env.Verify();
        }
    }

    [Fact]
    public void What_an_interrupted_creation_left_is_discarded_and_creation_starts_over()
    {
        using var dir = new TestDirectory("create-interrupted");
        // A creator killed part way: a temporary file with some pages of garbage, and no data file.
        File.WriteAllBytes(TemporaryPath(dir), Bytes.Value(3, 5 * StorageConstants.PageSize + 17));

        Populate(dir.Path, 50);
        Assert.False(File.Exists(TemporaryPath(dir)));
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        env.Verify();
        using var tx = env.BeginRead();
        Assert.Equal(50, tx.OpenTree("t").Count);
    }

    [Fact]
    public void A_temporary_file_beside_a_complete_data_file_is_removed_and_the_data_kept()
    {
        using var dir = new TestDirectory("create-leftover");
        Populate(dir.Path, 50);
        File.WriteAllBytes(TemporaryPath(dir), Bytes.Value(4, 3 * StorageConstants.PageSize));

        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        Assert.False(File.Exists(TemporaryPath(dir)));
        using var tx = env.BeginRead();
        Assert.Equal(50, tx.OpenTree("t").Count);
    }

    [Fact]
    public async Task Concurrent_first_opens_create_one_environment_and_the_others_find_it()
    {
        using var dir = new TestDirectory("create-race");
        var options = new StorageOptions(dir.Path) { LockWaitTimeout = TimeSpan.FromMinutes(2) };
        using var start = new Barrier(4);
        // Each opener adds its own tree: were a later opener to format the file again, earlier trees would vanish.
        var openers = Enumerable.Range(0, 4).Select(n => Task.Factory.StartNew(() =>
        {
            start.SignalAndWait();
            using var env = StorageEnvironment.Open(options);
            using var tx = env.BeginWrite();
            tx.CreateTree($"opener-{n}").Put(Bytes.Key(n), Bytes.Value(n, 40));
            tx.Commit();
        }, TaskCreationOptions.LongRunning)).ToArray();
        await Task.WhenAll(openers).WaitAsync(TimeSpan.FromMinutes(3));

        Assert.False(File.Exists(TemporaryPath(dir)));
        using var reopened = StorageEnvironment.Open(options);
        reopened.Verify();
        using var read = reopened.BeginRead();
        for (int n = 0; n < 4; n++)
            Assert.True(read.OpenTree($"opener-{n}").TryGet(Bytes.Key(n), out _), $"opener {n}'s tree is gone");
    }

    private static void Populate(string path, int count)
    {
        using var env = StorageEnvironment.Open(new StorageOptions(path));
        using var tx = env.BeginWrite();
        var t = tx.CreateTree("t");
        for (int i = 0; i < count; i++)
            t.Put(Bytes.Key(i), Bytes.Value(i, 30));
        tx.Commit();
    }

    private static void FlipByte(string path, long offset) => FileDamage.FlipBits(path, offset);
}
