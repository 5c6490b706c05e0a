using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// A compacting copy's <see cref="BackupResult"/> describes the copy it made (issue 30, item 7: a compacting directory
/// backup said "4 file(s)" for a copy holding one data file): its files and bytes are the copy's own.
/// </summary>
public sealed class CompactionResultTests
{
    private static string[] FilesIn(string directory)
        => [.. Directory.GetFiles(directory, "*", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(directory, f)).Order(StringComparer.Ordinal)];

    private static long BytesIn(string directory)
        => Directory.GetFiles(directory, "*", SearchOption.AllDirectories).Sum(f => new FileInfo(f).Length);

    [Fact]
    public void A_compacting_backup_counts_the_files_and_bytes_of_the_copy_it_made()
    {
        using var dir = new TestDirectory("compact-result");
        string source = dir.File("env"), copy = dir.File("copy"), closedCopy = dir.File("closed-copy");
        using (var env = StorageEnvironment.Open(new StorageOptions(source) { InitialJournalFileBytes = 256 << 10 }))
        {
            // Enough commits for the copy to have switched journals more than once before its clean close.
            for (int round = 0; round < 8; round++)
                BackupContent.Fill(env, "t", round * 2_000, 2_000, 300);
            var result = env.Backup(copy, new BackupOptions { Compact = true }, CancellationToken.None);

            Assert.Equal([StorageEnvironment.DataFileName], FilesIn(copy));
            Assert.Equal(FilesIn(copy).Length, result.Files);
            Assert.Equal(BytesIn(copy), result.Bytes);
            Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);

            using var stream = new MemoryStream();
            var streamed = env.Backup(stream, new BackupOptions { Compact = true }, CancellationToken.None);
            stream.Position = 0;
            var restored = EnvironmentBackup.Restore(stream, dir.File("restored"));
            Assert.Equal(restored.Files, streamed.Files);
            Assert.Equal(FilesIn(dir.File("restored")).Length, restored.Files);
        }
        var closed = EnvironmentBackup.Compact(source, closedCopy);
        Assert.Equal([StorageEnvironment.DataFileName], FilesIn(closedCopy));
        Assert.Equal(1, closed.Files);
        Assert.Equal(BytesIn(closedCopy), closed.Bytes);
        BackupContent.AssertEqual(BackupContent.ReadAll(source), BackupContent.ReadAll(closedCopy));
        BackupContent.AssertEqual(BackupContent.ReadAll(source), BackupContent.ReadAll(copy));
    }
}
