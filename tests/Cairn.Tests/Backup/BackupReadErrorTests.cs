using Cairn.Backups;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// A data file page the plain copy cannot read fails the backup with a typed exception naming the live data file and
/// the offset, for a directory and a stream alike, and leaves the environment working and no partial copy (issue 27
/// item 2). The copy reads with positioned reads: read through a mapping, the same page faulted the process (SIGBUS).
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

    [Theory]
    [InlineData("directory")]
    [InlineData("stream")]
    public void A_read_error_in_the_data_file_fails_the_backup_with_DeviceIOException_naming_the_file_and_the_offset(string kind)
    {
        using var dir = new TestDirectory("backup-read-eio");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = Filled(source);
        string dataFile = Path.Combine(source, StorageEnvironment.DataFileName);
        long length = new FileInfo(dataFile).Length;
        Assert.Equal(1 << 20, HotCopy.DataChunkSize(length));
        Assert.True(length >= 4L << 20, $"data file of {length} bytes");

        // The second read of the data file: its second chunk.
        PalFaultInjection.Arm(PalFaultKind.ReadError, after: 1, osError: EIO, pathFilter: dataFile);
        var error = Assert.Throws<DeviceIOException>(() => Backup(env, kind, copy));

        Assert.Equal(dataFile, error.FilePath);
        Assert.Equal(1L << 20, error.Offset);
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
        // Past the chunks read by the time the first is reported (the reader stays one chunk ahead), inside a chunk.
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
