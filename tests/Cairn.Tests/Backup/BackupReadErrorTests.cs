using Cairn.Backups;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// A data file page the plain copy cannot read fails the backup with a typed exception naming the live data file and
/// the offset, for a directory and a stream alike, and leaves the environment working and no partial copy (issue 27
/// item 2). Read through a mapping in this process, the same page faulted it (SIGBUS); written from a mapping by the
/// kernel, it failed the write of the copy's file (EFAULT), naming neither the data file nor the page.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class BackupReadErrorTests : IDisposable
{
    private const int EIO = 5;

    public void Dispose() => PalFaultInjection.Disarm();

    // About 10 MiB of data file: under 32 MiB, so the copy reads it in 1 MiB chunks, and at least four of them.
    private static StorageEnvironment Filled(string source)
    {
        var env = StorageEnvironment.Open(new StorageOptions(source));
        BackupContent.Fill(env, "a", 0, 20_000, 500);
        env.Checkpoint();
        return env;
    }

    private static BackupResult Backup(StorageEnvironment env, string kind, string copy, BackupOptions? options = null)
    {
        if (kind == "directory")
            return env.Backup(copy, options, CancellationToken.None);
        using var stream = File.Create(copy);
        return env.Backup(stream, options, CancellationToken.None);
    }

    // The copy reads the header pages first (offset 0); a stream's copy then reads 1 MiB chunks, a directory's writes
    // the rest from a mapping and reads only to name a page the write could not take (the cut below).
    [Theory]
    [InlineData("directory", 0, 0)]
    [InlineData("stream", 0, 0)]
    [InlineData("stream", 1, 1 << 20)]
    [InlineData("stream", 3, 3 << 20)]
    public void A_read_error_in_the_data_file_fails_the_backup_with_DeviceIOException_naming_the_file_and_the_offset(string kind, int readsBefore, long offset)
    {
        using var dir = new TestDirectory("backup-read-eio");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = Filled(source);
        string dataFile = Path.Combine(source, StorageEnvironment.DataFileName);
        long length = new FileInfo(dataFile).Length;
        Assert.Equal(1 << 20, HotCopy.DataChunkSize(length));
        Assert.True(length >= 4L << 20, $"data file of {length} bytes");

        PalFaultInjection.Arm(PalFaultKind.ReadError, after: readsBefore, osError: EIO, pathFilter: dataFile);
        var error = Assert.Throws<DeviceIOException>(() => Backup(env, kind, copy));

        Assert.Equal(dataFile, error.FilePath);
        Assert.Equal(offset, error.Offset);
        Assert.Equal(EIO, error.OsError);
        Assert.Contains(dataFile, error.Message);
        Assert.False(env.HasFailed);
        Assert.Empty(Directory.GetDirectories(dir.Path, ".copy.staging-*"));
        if (kind == "directory")
            Assert.False(Directory.Exists(copy));

        PalFaultInjection.Disarm();
        File.Delete(copy);
        var result = Backup(env, kind, copy);
        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
    }

    [Theory]
    [InlineData("directory")]
    [InlineData("stream")]
    public void A_data_file_cut_short_under_the_copy_fails_the_backup_with_StorageFormatException_at_the_cut(string kind)
    {
        using var dir = new TestDirectory("backup-read-cut");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = Filled(source);
        string dataFile = Path.Combine(source, StorageEnvironment.DataFileName);
        long length = new FileInfo(dataFile).Length;
        Assert.True(length >= 4L << 20, $"data file of {length} bytes");
        // Past the chunks read by the time the first is reported (a stream's reader stays one chunk ahead), inside a chunk.
        long cut = (length / 2 / 8192 * 8192) + 8192;
        Assert.True(cut > 3L << 20);
        // Through the PAL: a FileStream would ask for the lock the environment holds.
        byte[] tail = new byte[length - cut];
        using (var file = PalFile.Open(dataFile, PalOpenFlags.ReadOnly))
            Assert.Equal(tail.Length, file.Read(tail, cut));

        bool cutDone = false;
        var options = new BackupOptions
        {
            Progress = new InlineProgress(_ =>
            {
                if (cutDone)
                    return;
                cutDone = true;
                using var file = PalFile.Open(dataFile, PalOpenFlags.ReadWrite);
                file.SetSize(cut);
            }),
        };
        StorageFormatException error;
        try
        {
            error = Assert.Throws<StorageFormatException>(() => Backup(env, kind, copy, options));
        }
        finally
        {
            // The environment's own mapping of the cut pages must not fault when it closes: the bytes go back.
            using var file = PalFile.Open(dataFile, PalOpenFlags.ReadWrite);
            file.Write(tail, cut);
        }

        Assert.True(cutDone);
        Assert.Equal(dataFile, error.FilePath);
        Assert.Equal(cut, error.Offset);
        Assert.Contains(dataFile, error.Message);
        Assert.False(env.HasFailed);
        Assert.Empty(Directory.GetDirectories(dir.Path, ".copy.staging-*"));
        File.Delete(copy);
        var result = Backup(env, kind, copy);
        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
    }
}
