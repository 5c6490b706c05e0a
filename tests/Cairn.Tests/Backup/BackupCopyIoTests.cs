using Cairn.Backups;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// How a directory backup writes its files (issue 27 item 2): through the PAL, so a full disk is a typed
/// <see cref="DiskFullException"/> naming the copy's file and the fault hooks reach it; the data file from its mapping
/// straight to the device where the file system allows direct I/O, other files written back in 8 MiB slices (each
/// slice's write-back started when it is full, the one before it waited for) instead of one sync at the end.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class BackupCopyIoTests : IDisposable
{
    private const int ENOSPC = 28;

    public void Dispose() => PalFaultInjection.Disarm();

    [Fact]
    public void A_full_disk_under_the_copy_fails_the_backup_with_DiskFullException_naming_the_file_and_leaves_no_copy()
    {
        using var dir = new TestDirectory("backup-disk-full");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        BackupContent.Fill(env, "a", 0, 4000, 500);
        env.Checkpoint();

        // After the header pages: the first range the copy writes from the live data file.
        PalFaultInjection.Arm(PalFaultKind.WriteError, after: 1, osError: ENOSPC, pathFilter: Path.Combine(dir.Path, ".copy.staging-"));
        var error = Assert.Throws<DiskFullException>(() => env.Backup(copy));

        Assert.EndsWith(Path.DirectorySeparatorChar + StorageEnvironment.DataFileName, error.FilePath);
        Assert.Contains(".copy.staging-", error.FilePath);
        Assert.False(Directory.Exists(copy));
        Assert.Empty(Directory.GetDirectories(dir.Path, ".copy.staging-*"));
        Assert.False(env.HasFailed);
        PalFaultInjection.Disarm();
        var result = env.Backup(copy);
        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(copy));
    }

    [Fact]
    public void The_data_file_goes_to_the_device_directly_in_whole_pages_then_is_synced_once()
    {
        using var dir = new TestDirectory("backup-direct");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        for (int batch = 0; batch < 3; batch++)
            BackupContent.Fill(env, "a", batch * 10_000, 10_000, 500);
        env.Checkpoint();

        IReadOnlyList<PalTracedOperation> operations;
        using (var recording = PalIoRecording.Start(Path.Combine(dir.Path)))
        {
            env.Backup(copy);
            operations = recording.Operations;
        }

        var dataFile = operations.Where(o => o.Path.Contains(".copy.staging-", StringComparison.Ordinal)
            && o.Path.EndsWith(Path.DirectorySeparatorChar + StorageEnvironment.DataFileName, StringComparison.Ordinal)).ToList();
        long length = new FileInfo(Path.Combine(copy, StorageEnvironment.DataFileName)).Length;
        var writes = dataFile.Where(o => o.Kind == PalTracedKind.Write).ToList();
        Assert.Equal(length, writes.Sum(o => o.Size));
        Assert.All(writes, w => Assert.Equal(0, w.Offset % 8192));
        Assert.All(writes, w => Assert.Equal(0, w.Size % 8192));
        if (DirectIoWorksIn(dir.Path))
            Assert.DoesNotContain(dataFile, o => o.Kind == PalTracedKind.SyncRange); // nothing in the page cache to write back
        else
            Assert.Contains(dataFile, o => o.Kind == PalTracedKind.SyncRange);
        Assert.Equal(PalTracedKind.Sync, dataFile[^1].Kind);
        Assert.Single(dataFile, o => o.Kind == PalTracedKind.Sync);
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(copy));
    }

    [Fact]
    public void A_file_written_through_the_page_cache_is_written_back_in_slices_the_one_before_each_waited_for_then_synced_once()
    {
        using var dir = new TestDirectory("backup-slices");
        long slice = SlicedFileWriter.SliceBytes, length = 3 * slice + 4096;
        var chunk = new byte[1 << 20];
        IReadOnlyList<PalTracedOperation> operations;
        using (var recording = PalIoRecording.Start(dir.Path))
        {
            using (var file = new SlicedFileWriter(Path.Combine(dir.Path, "copied")))
            {
                for (long done = 0; done < length; done += chunk.Length)
                    file.Write(chunk.AsSpan(0, (int)Math.Min(chunk.Length, length - done)));
                file.Complete();
            }
            operations = recording.Operations;
        }

        // Slice k's write-back starts when it is full; slice k-1 is waited for right after; the rest goes with the sync.
        var expected = new List<(long Offset, long Size)>();
        for (long k = 0; k < 3; k++)
        {
            expected.Add((k * slice, slice));
            if (k > 0)
                expected.Add(((k - 1) * slice, slice));
        }
        expected.Add((3 * slice, 0));
        Assert.Equal(expected, operations.Where(o => o.Kind == PalTracedKind.SyncRange).Select(o => (o.Offset, o.Size)).ToList());
        Assert.Equal(PalTracedKind.Sync, operations[^1].Kind);
        Assert.Single(operations, o => o.Kind == PalTracedKind.Sync);
        Assert.Equal(length, operations.Where(o => o.Kind == PalTracedKind.Write).Sum(o => o.Size));
    }

    private static bool DirectIoWorksIn(string directory)
    {
        string probe = Path.Combine(directory, "direct-probe");
        using (var file = PalFile.Open(probe, PalOpenFlags.CreateNew | PalOpenFlags.Direct))
            if (!file.IsDirect)
                return false;
        File.Delete(probe);
        return true;
    }
}
