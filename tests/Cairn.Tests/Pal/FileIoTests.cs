using System.Runtime.InteropServices;
using Cairn.Pal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Pal;

public unsafe class FileIoTests
{
    [Fact]
    public void Journal_round_trip_with_direct_io()
    {
        using var dir = new TestDirectory("journal-roundtrip");
        var path = dir.File("0000000000000000001.journal");
        const int size = 1 << 20;
        byte* buffer = (byte*)NativeMemory.AlignedAlloc(3 * 4096, 4096);
        try
        {
            using var journal = PalFile.OpenJournal(path, size);
            Assert.True(journal.IsDirect);
            Assert.False(journal.DirectIOFellBack);
            Assert.Equal(size, journal.GetSize());

            new Span<byte>(buffer, 3 * 4096).Fill(0x5A);
            var buffers = stackalloc PalBuffer[] { new(buffer, 4096), new(buffer + 4096, 8192) };
            journal.Write(new ReadOnlySpan<PalBuffer>(buffers, 2), offset: 8192);

            // Recovery reads journals through a buffered handle: O_DIRECT reads would need aligned buffers.
            using var reader = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
            var readBack = new byte[size];
            Assert.Equal(size, reader.Read(readBack, 0));
            Assert.All(readBack.AsSpan(0, 8192).ToArray(), b => Assert.Equal(0, b));
            Assert.All(readBack.AsSpan(8192, 3 * 4096).ToArray(), b => Assert.Equal(0x5A, b));
            Assert.All(readBack.AsSpan(8192 + 3 * 4096).ToArray(), b => Assert.Equal(0, b));
        }
        finally
        {
            NativeMemory.AlignedFree(buffer);
        }
    }

    [Fact]
    public void Direct_write_rejects_misaligned_buffers_with_a_clear_error()
    {
        using var dir = new TestDirectory("journal-misaligned");
        var path = dir.File("journal");
        using var journal = PalFile.OpenJournal(path, 64 * 1024);
        var error = Assert.Throws<PalIOException>(() => journal.Write(new byte[100], 0));
        Assert.Equal(PalStatus.InvalidArgument, error.Status);
        Assert.Equal(path, error.FilePath);
    }

    [Fact]
    public void Read_past_end_returns_what_exists()
    {
        using var dir = new TestDirectory("read-eof");
        using var file = PalFile.Open(dir.File("data"), PalOpenFlags.Create);
        file.Write(new byte[] { 1, 2, 3 }, 0);
        var buffer = new byte[10];
        Assert.Equal(3, file.Read(buffer, 0));
        Assert.Equal(0, file.Read(buffer, 100));
    }

    [Fact]
    public void Both_writer_backends_write_identical_files()
    {
        using var dir = new TestDirectory("writer-backends");
        const int pageSize = 8192;
        var random = new Random(7);
        var pageNumbers = Enumerable.Range(0, 2000).Where(_ => random.Next(4) != 0).ToArray();
        byte* pages = (byte*)NativeMemory.AlignedAlloc((nuint)(pageNumbers.Length * pageSize), 4096);
        try
        {
            random.NextBytes(new Span<byte>(pages, pageNumbers.Length * pageSize));
            var ops = pageNumbers.Select((page, i) => new PalWriteOp(pages + (long)i * pageSize, (long)page * pageSize, pageSize)).ToArray();
            // This machine kind runs io_uring; a fallback here would be a regression worth failing on.
            Assert.Equal(PalBackend.IoUring, PalIo.GetBackend().Backend);
            var ring = dir.File("ring");
            var pwritev = dir.File("pwritev");
            using (var file = PalFile.Open(ring, PalOpenFlags.Create))
            {
                file.WriteGather(ops, PalBackend.IoUring);
                file.SyncGather(PalBackend.IoUring);
            }
            using (var file = PalFile.Open(pwritev, PalOpenFlags.Create))
            {
                file.WriteGather(ops, PalBackend.Pwritev);
                file.SyncGather(PalBackend.Pwritev);
            }
            Assert.True(File.ReadAllBytes(ring).AsSpan().SequenceEqual(File.ReadAllBytes(pwritev)));
            Assert.Equal((long)(pageNumbers[^1] + 1) * pageSize, new FileInfo(ring).Length);
        }
        finally
        {
            NativeMemory.AlignedFree(pages);
        }
    }

    [Fact]
    public void Hard_links_share_the_file()
    {
        using var dir = new TestDirectory("hardlink");
        var original = dir.File("journal");
        var link = dir.File("branch-journal");
        File.WriteAllText(original, "entry");

        PalFileSystem.HardLink(original, link);

        Assert.True(PalFileSystem.SameFile(original, link));
        Assert.Equal(2, PalFileSystem.LinkCount(original));
        PalFileSystem.DeleteFile(original);
        Assert.Equal(1, PalFileSystem.LinkCount(link));
        Assert.Equal("entry", File.ReadAllText(link));
        Assert.Throws<PalFileNotFoundException>(() => PalFileSystem.DeleteFile(original));
    }

    [Fact]
    public void Scratch_directory_is_on_a_durable_file_system()
    {
        using var dir = new TestDirectory("fsinfo");
        var info = PalFileSystem.GetInfo(dir.Path);
        Assert.False(info.IsVolatile);
        Assert.True(info.SupportsDirectIO);
        Assert.True(info.FreeBytes > 0 && info.TotalBytes >= info.FreeBytes);
    }
}
