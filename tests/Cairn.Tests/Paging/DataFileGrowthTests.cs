using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Paging;

/// <summary>
/// Growth of the data file is all or nothing: whatever a failing allocation granted is taken back and
/// <see cref="DataFile.PageCount"/> stays, a full disk is retried with only the pages required, and an
/// open ignores (then cuts off) the bytes past the last whole page that a crash during growth leaves.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class DataFileGrowthTests : IDisposable
{
    private const int ENOSPC = 28;
    private const int EIO = 5;
    private const int PageSize = StorageConstants.PageSize;

    public void Dispose() => PalFaultInjection.Disarm();

    private static DataFile NewFile(TestDirectory dir, long pages)
    {
        var file = DataFile.OpenForCreation(Path.Combine(dir.Path, "grown"), TimeSpan.FromSeconds(5));
        file.EnsureCapacity(pages);
        return file;
    }

    private static long SizeOnDisk(DataFile file) => new FileInfo(file.FilePath).Length;

    [Fact]
    public void A_full_disk_is_retried_with_only_the_pages_required()
    {
        using var dir = new TestDirectory("growth-retry");
        using var file = NewFile(dir, 64);
        // Doubling would ask for 128 pages; the disk grants half a page of them and is full.
        PalFaultInjection.Arm(PalFaultKind.AllocateError, limit: PageSize / 2, osError: ENOSPC, pathFilter: file.FilePath);

        Assert.True(file.EnsureCapacity(70));

        Assert.Equal(70, file.PageCount);
        Assert.Equal(70L * PageSize, SizeOnDisk(file));
    }

    [Fact]
    public void A_full_disk_for_the_pages_required_leaves_the_file_as_it_was()
    {
        using var dir = new TestDirectory("growth-full");
        using var file = NewFile(dir, 64);
        // 200 pages is more than a doubling step: the first attempt already asks for exactly what is required.
        PalFaultInjection.Arm(PalFaultKind.AllocateError, limit: PageSize / 2, osError: ENOSPC, pathFilter: file.FilePath);

        var error = Assert.Throws<DiskFullException>(() => file.EnsureCapacity(200));

        Assert.Equal(file.FilePath, error.FilePath);
        Assert.Equal(64, file.PageCount);
        Assert.Equal(64L * PageSize, SizeOnDisk(file));
        // The next growth, with space, goes ahead as if nothing had happened.
        Assert.True(file.EnsureCapacity(200));
        Assert.Equal(200L * PageSize, SizeOnDisk(file));
    }

    [Fact]
    public void An_IO_error_in_growth_is_not_retried_and_leaves_the_file_as_it_was()
    {
        using var dir = new TestDirectory("growth-eio");
        using var file = NewFile(dir, 64);
        PalFaultInjection.Arm(PalFaultKind.AllocateError, limit: 3 * PageSize + 100, osError: EIO, pathFilter: file.FilePath);

        Assert.Throws<DeviceIOException>(() => file.EnsureCapacity(70));

        Assert.Equal(64, file.PageCount);
        Assert.Equal(64L * PageSize, SizeOnDisk(file));
    }

    [Fact]
    public void Bytes_past_the_last_whole_page_are_ignored_logged_and_cut_off_at_open()
    {
        using var dir = new TestDirectory("growth-trailing");
        var options = new StorageOptions(dir.Path);
        using (var env = StorageEnvironment.Open(options))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Bytes.Key(1), Bytes.Value(1, 50_000));
            tx.Commit();
        }
        string dataPath = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        long pages = new FileInfo(dataPath).Length / PageSize;
        // What a crash part way through a growth leaves: the size moved, by less than a page.
        using (var stream = new FileStream(dataPath, FileMode.Append))
            stream.Write(new byte[PageSize / 2]);

        var log = new CapturingLoggerFactory();
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { LoggerFactory = log }))
        {
            using var tx = env.BeginRead();
            Assert.True(tx.OpenTree("t").TryGet(Bytes.Key(1), out var value));
            Assert.True(value.SequenceEqual(Bytes.Value(1, 50_000)));
            env.Verify();
        }
        var record = Assert.Single(log.WithEventId(1003));
        Assert.Contains($"{PageSize / 2} bytes past its last whole page at offset {pages * PageSize}", record.Message);
        Assert.Equal(pages * PageSize, new FileInfo(dataPath).Length);
    }
}
