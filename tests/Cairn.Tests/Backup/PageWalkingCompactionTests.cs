using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>
/// The compacting copy walks the snapshot's pages (issue 27, item 2): the copy holds exactly the snapshot's entries,
/// every page below its high-water mark is in use (none free), and it opens with nothing to replay.
/// </summary>
public class PageWalkingCompactionTests
{
    /// <summary>Many trees, one emptied by deletes, one with overflow values and deletes that leave it sparse, one never written.</summary>
    private static void FillSparse(StorageEnvironment env)
    {
        for (int t = 0; t < 40; t++)
            BackupContent.Fill(env, $"tree-{t:D2}", 0, 200 + 50 * t, 100 + t, seed: t);
        BackupContent.Fill(env, "sparse", 0, 20_000, 150);
        BackupContent.Fill(env, "emptied", 0, 3_000, 64);
        using var tx = env.BeginWrite();
        var sparse = tx.OpenTree("sparse");
        for (int i = 0; i < 20_000; i++)
        {
            if (i % 7 != 0)
                sparse.Delete(Bytes.Key(i));
            else if (i % 14 == 0)
                sparse.Put(Bytes.Key(i), Bytes.Value(i, 3_000 + i)); // overflow runs of different lengths
        }
        var emptied = tx.OpenTree("emptied");
        for (int i = 0; i < 3_000; i++)
            emptied.Delete(Bytes.Key(i));
        tx.CreateTree("never-written");
        tx.Commit();
    }

    /// <summary>Opens the copy, checks it holds no journal and has no free page, and returns its content.</summary>
    private static SortedDictionary<string, Dictionary<string, byte[]>> ReadCompacted(string directory)
    {
        Assert.Equal([StorageEnvironment.DataFileName], Directory.GetFileSystemEntries(directory).Select(Path.GetFileName));
        using var env = StorageEnvironment.Open(new StorageOptions(directory));
        var report = env.Verify();
        Assert.Equal(0, report.FreePages);
        Assert.Equal(report.TotalPages, report.PagesInUse);
        return BackupContent.ReadAll(env);
    }

    [Fact]
    public void A_compacted_copy_of_a_sparse_environment_holds_every_entry_and_no_free_page()
    {
        using var dir = new TestDirectory("walk-sparse");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        FillSparse(env);
        env.Checkpoint();
        var expected = BackupContent.ReadAll(env);

        var result = env.Backup(copy, new BackupOptions { Compact = true }, CancellationToken.None);

        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        Assert.Equal(new FileInfo(Path.Combine(copy, StorageEnvironment.DataFileName)).Length, result.Bytes);
        Assert.True(result.Bytes < new FileInfo(Path.Combine(source, StorageEnvironment.DataFileName)).Length,
            $"compacted {result.Bytes} bytes");
        BackupContent.AssertEqual(expected, ReadCompacted(copy));
    }

    [Fact]
    public void An_empty_environment_compacts_to_an_empty_environment()
    {
        using var dir = new TestDirectory("walk-empty");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using (StorageEnvironment.Open(new StorageOptions(source))) { }

        EnvironmentBackup.Compact(source, copy);

        Assert.Empty(ReadCompacted(copy));
        using var env = StorageEnvironment.Open(new StorageOptions(copy));
        BackupContent.Fill(env, "after", 0, 1_000, 50);
        using var read = env.BeginRead();
        Assert.Equal(1_000, read.OpenTree("after").Count);
    }

    [Fact]
    public void A_compacted_copy_takes_writes_and_reopens()
    {
        using var dir = new TestDirectory("walk-reopen");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using (var env = StorageEnvironment.Open(new StorageOptions(source)))
            FillSparse(env);
        EnvironmentBackup.Compact(source, copy);

        SortedDictionary<string, Dictionary<string, byte[]>> expected;
        using (var env = StorageEnvironment.Open(new StorageOptions(copy)))
        {
            BackupContent.Fill(env, "sparse", 20_000, 5_000, 400);
            using (var tx = env.BeginWrite())
            {
                tx.DeleteTree("tree-03");
                tx.Commit();
            }
            env.Verify();
            expected = BackupContent.ReadAll(env);
        }
        BackupContent.AssertEqual(expected, BackupContent.ReadAll(copy));
    }

    [Fact]
    public void Writers_committing_during_the_copy_change_nothing_in_it()
    {
        using var dir = new TestDirectory("walk-writers");
        string source = Path.Combine(dir.Path, "env"), copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(source));
        FillSparse(env);
        var expected = BackupContent.ReadAll(env);
        long snapshot = env.LastCommittedTransactionId;
        int reports = 0;
        // Inside the copy (on its thread, between two of its writes): overwrite, delete and add, in many trees, and
        // flush all of it into the data file the snapshot reads.
        var progress = new InlineProgress(_ =>
        {
            if (reports++ > 2)
                return;
            using (var tx = env.BeginWrite())
            {
                var sparse = tx.OpenTree("sparse");
                for (int i = 0; i < 20_000; i += 7)
                    sparse.Put(Bytes.Key(i), Bytes.Value(i + reports, 5_000));
                for (int t = 0; t < 40; t += 3)
                    tx.DeleteTree($"tree-{t:D2}");
                tx.CreateTree($"new-{reports}").Put(Bytes.Key(1), Bytes.Value(1, 10));
                tx.Commit();
            }
            env.Checkpoint();
        });

        var result = env.Backup(copy, new BackupOptions { Compact = true, Progress = progress }, CancellationToken.None);

        Assert.True(reports > 2, $"the copy reported progress {reports} times");
        Assert.Equal(snapshot, result.TransactionId);
        Assert.NotEqual(snapshot, env.LastCommittedTransactionId);
        BackupContent.AssertEqual(expected, ReadCompacted(copy));
    }
}
