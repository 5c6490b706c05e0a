using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

public class CorruptionTests
{
    [Fact]
    public void A_flipped_byte_in_a_page_raises_a_corruption_exception_naming_file_and_page()
    {
        using var dir = new TestDirectory("corrupt-page");
        long leafPage;
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginWrite();
            var t = tx.CreateTree("t");
            t.Put(Bytes.Key(1), Bytes.Value(1, 100));
            leafPage = t.Inner.State.RootPage;
            tx.Commit();
        }
        var dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        FlipByte(dataFile, leafPage * StorageConstants.PageSize + StorageConstants.PageSize - 3);

        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginRead();
            var error = Assert.Throws<PageCorruptionException>(() => tx.OpenTree("t").TryGet(Bytes.Key(1), out _));
            Assert.Equal(leafPage, error.PageNumber);
            Assert.Equal(dataFile, error.FilePath);
            Assert.NotEqual(error.StoredChecksum, error.ComputedChecksum);
            Assert.Contains($"Page {leafPage}", error.Message);
        }
    }

    [Fact]
    public void One_corrupt_header_copy_is_repaired_from_the_other()
    {
        using var dir = new TestDirectory("corrupt-header-one");
        Populate(dir.Path);
        var dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        FlipByte(dataFile, 40); // inside header copy 0

        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginRead();
            Assert.Equal(100, tx.OpenTree("t").Count);
        }
        // Both copies are valid again: corrupting the other one now is survivable too.
        FlipByte(dataFile, StorageConstants.PageSize + 40);
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginRead();
            Assert.Equal(100, tx.OpenTree("t").Count);
        }
    }

    [Fact]
    public void Both_header_copies_corrupt_is_a_clear_error()
    {
        using var dir = new TestDirectory("corrupt-header-both");
        Populate(dir.Path);
        var dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        FlipByte(dataFile, 40);
        FlipByte(dataFile, StorageConstants.PageSize + 40);

        var error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Equal(dataFile, error.FilePath);
        Assert.Contains("both header copies are invalid", error.Message);
    }

    [Fact]
    public void A_file_that_is_not_a_data_file_is_refused()
    {
        using var dir = new TestDirectory("corrupt-wrong-file");
        var dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        File.WriteAllBytes(dataFile, Bytes.Value(7, 4 * StorageConstants.PageSize));
        var error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Contains("not a Cairn header", error.Message);

        File.WriteAllBytes(dataFile, new byte[100]);
        var truncated = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Contains("cannot hold its two", truncated.Message);
    }

    private static void Populate(string path)
    {
        using var env = StorageEnvironment.Open(new StorageOptions(path));
        using var tx = env.BeginWrite();
        var t = tx.CreateTree("t");
        for (int i = 0; i < 100; i++)
            t.Put(Bytes.Key(i), Bytes.Value(i, 30));
        tx.Commit();
    }

    private static void FlipByte(string path, long offset) => FileDamage.FlipBits(path, offset);
}
