using Cairn.Backups;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// How a directory backup writes its files (issue 27 item 2): through the PAL, so a full disk is a typed
/// <see cref="DiskFullException"/> naming the copy's file and the fault hooks reach it, and written back in 8 MiB slices
/// (each slice's write-back started when it is full, the one before it waited for) instead of one sync at the end.
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
    public void The_copy_is_written_back_in_slices_the_one_before_each_waited_for_then_synced_once()
    {
        using var dir = new TestDirectory("backup-slices");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        for (int batch = 0; batch < 6; batch++)
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
        long slice = SlicedFileWriter.SliceBytes, full = length / slice;
        Assert.True(full >= 3, $"a data file of {length} bytes spans at least three slices");
        // Slice k's write-back starts when it is full; slice k-1 is waited for right after; the rest goes with the sync.
        var expected = new List<(long Offset, long Size)>();
        for (long k = 0; k < full; k++)
        {
            expected.Add((k * slice, slice));
            if (k > 0)
                expected.Add(((k - 1) * slice, slice));
        }
        if (length > full * slice)
            expected.Add((full * slice, 0));
        var ranges = dataFile.Where(o => o.Kind == PalTracedKind.SyncRange).Select(o => (o.Offset, o.Size)).ToList();
        Assert.Equal(expected, ranges);
        Assert.Equal(PalTracedKind.Sync, dataFile[^1].Kind);
        Assert.Single(dataFile, o => o.Kind == PalTracedKind.Sync);
        Assert.Equal(length, dataFile.Where(o => o.Kind == PalTracedKind.Write).Sum(o => o.Size));
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(copy));
    }
}
