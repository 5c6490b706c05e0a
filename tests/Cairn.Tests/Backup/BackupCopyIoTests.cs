using Cairn.Backups;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// How a directory backup writes its files (issue 27 item 2): through the PAL, so a full disk is a typed
/// <see cref="DiskFullException"/> naming the copy's file and the fault hooks reach it; directly where the file system
/// allows, else through the page cache written back in 8 MiB slices (each slice's write-back started when it is full,
/// the one before it waited for); synced once, at the end.
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
    public void A_backup_file_is_written_directly_where_the_file_system_allows_and_synced_once()
    {
        using var dir = new TestDirectory("backup-direct");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        BackupContent.Fill(env, "a", 0, 10_000, 500);
        env.Checkpoint();
        BackupContent.Fill(env, "b", 0, 333, 77); // a journal cut at the end of its last entry

        IReadOnlyList<PalTracedOperation> operations;
        using (var recording = PalIoRecording.Start(dir.Path))
        {
            env.Backup(copy);
            operations = recording.Operations;
        }

        foreach (string file in Directory.GetFiles(copy, "*", SearchOption.AllDirectories))
        {
            var ops = operations.Where(o => o.Path.Contains(".copy.staging-", StringComparison.Ordinal)
                && o.Path.EndsWith(Path.GetRelativePath(copy, file), StringComparison.Ordinal)).ToList();
            Assert.Single(ops, o => o.Kind == PalTracedKind.Sync);
            Assert.True(ops.FindIndex(o => o.Kind == PalTracedKind.Sync) > ops.FindLastIndex(o => o.Kind is PalTracedKind.Write or PalTracedKind.Truncate),
                $"{file}: synced after its last write");
        }
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(copy));
    }

    [Theory]
    [InlineData(3 * 8 << 20)]
    [InlineData((3 * 8 << 20) + 12345)]
    public void Through_the_page_cache_a_file_is_written_back_in_slices_the_one_before_each_waited_for_then_synced_once(int length)
    {
        using var dir = new TestDirectory("backup-slices");
        string from = Path.Combine(dir.Path, "from"), to = Path.Combine(dir.Path, "to");
        var bytes = new byte[length];
        new Random(length).NextBytes(bytes);
        File.WriteAllBytes(from, bytes);

        IReadOnlyList<PalTracedOperation> operations;
        using (var recording = PalIoRecording.Start(dir.Path))
        {
            using var source = PalFile.Open(from, PalOpenFlags.ReadOnly);
            using var writer = new BackupFileWriter(to, direct: false);
            Assert.False(writer.IsDirect);
            for (long offset = 0; offset < length; offset += BackupFileWriter.MaxChunk)
                writer.CopyFrom(source, offset, (int)Math.Min(BackupFileWriter.MaxChunk, length - offset));
            writer.Complete();
            operations = recording.Operations.Where(o => o.Path == to).ToList();
        }

        long slice = BackupFileWriter.SliceBytes, full = length / slice;
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
        Assert.Equal(expected, operations.Where(o => o.Kind == PalTracedKind.SyncRange).Select(o => (o.Offset, o.Size)).ToList());
        Assert.Equal(PalTracedKind.Sync, operations[^1].Kind);
        Assert.Single(operations, o => o.Kind == PalTracedKind.Sync);
        Assert.Equal(bytes, File.ReadAllBytes(to));
    }
}
