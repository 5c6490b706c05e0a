using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Pal;

[Collection(NativeFaultCollection.Name)]
public class TypedExceptionTests
{
    private const int ENOENT = 2;
    private const int EIO = 5;
    private const int ENOSPC = 28;

    [Fact]
    public void Missing_file_throws_not_found_with_path_and_errno()
    {
        using var dir = new TestDirectory("typed-notfound");
        var path = dir.File("missing.data");

        var error = Assert.Throws<PalFileNotFoundException>(() => PalFile.Open(path, PalOpenFlags.ReadWrite));

        Assert.Equal(path, error.FilePath);
        Assert.Equal(ENOENT, error.OsError);
        Assert.Equal(PalStatus.NotFound, error.Status);
        Assert.Equal("opening a file", error.Operation);
        Assert.Contains(path, error.Message);
        Assert.Contains("OS error 2", error.Message);
    }

    [Fact]
    public void Disk_full_on_write_names_file_offset_and_errno()
    {
        using var dir = new TestDirectory("typed-diskfull");
        var path = dir.File("journal.0000000000000000001");
        using var file = PalFile.Open(path, PalOpenFlags.Create);
        try
        {
            PalFaultInjection.Arm(PalFaultKind.WriteError, osError: ENOSPC, pathFilter: path);
            var error = Assert.Throws<DiskFullException>(() => file.Write(new byte[100], offset: 8192));

            Assert.Equal(path, error.FilePath);
            Assert.Equal(8192, error.Offset);
            Assert.Equal(ENOSPC, error.OsError);
            Assert.Contains("at offset 8192", error.Message);
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
        // The fault fires once: the next write goes through.
        file.Write(new byte[100], offset: 8192);
    }

    [Fact]
    public void Zero_byte_write_is_reported_as_disk_full()
    {
        using var dir = new TestDirectory("typed-zerowrite");
        var path = dir.File("data");
        using var file = PalFile.Open(path, PalOpenFlags.Create);
        try
        {
            PalFaultInjection.Arm(PalFaultKind.ZeroWrite, pathFilter: path);
            var error = Assert.Throws<DiskFullException>(() => file.Write(new byte[10], 0));
            Assert.Equal(path, error.FilePath);
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
    }

    [Fact]
    public void Io_error_on_sync_is_a_device_error()
    {
        using var dir = new TestDirectory("typed-eio");
        var path = dir.File("data");
        using var file = PalFile.Open(path, PalOpenFlags.Create);
        file.Write(new byte[10], 0);
        try
        {
            PalFaultInjection.Arm(PalFaultKind.SyncError, osError: EIO, pathFilter: path);
            var error = Assert.Throws<DeviceIOException>(file.Sync);
            Assert.Equal(EIO, error.OsError);
            Assert.Equal("syncing", error.Operation);
            Assert.Equal(path, error.FilePath);
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
    }

    [Fact]
    public void Second_lock_holder_gets_file_locked()
    {
        using var dir = new TestDirectory("typed-lock");
        var path = dir.File("lock");
        using var first = PalFile.Open(path, PalOpenFlags.Create);
        using var second = PalFile.Open(path, PalOpenFlags.ReadWrite);
        first.Lock();

        var error = Assert.Throws<FileLockedException>(second.Lock);
        Assert.Equal(path, error.FilePath);

        first.Dispose();
        second.Lock(); // released with the handle
    }

    [Fact]
    public void Error_text_comes_from_the_os()
        => Assert.Contains("No space left on device", PalErrors.DescribeOsError(ENOSPC));
}
