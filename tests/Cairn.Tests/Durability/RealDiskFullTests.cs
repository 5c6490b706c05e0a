using Cairn.Pal;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// A real ENOSPC: the environment lives on a 24 MiB ext4 file system, a filler file takes most of it,
/// and commits go on until the disk is full. The failing commit fails cleanly; every acknowledged one
/// survives a crash; once the filler is gone the environment carries on without being reopened.
/// </summary>
public class RealDiskFullTests(ITestOutputHelper output)
{
    [Fact]
    public void Running_out_of_disk_fails_commits_cleanly_and_they_resume_once_space_is_back()
    {
        using var dir = new TestDirectory("disk-full");
        using var fs = LoopMountedFileSystem.TryCreate(dir.Path, megabytes: 24, out string? reason);
        if (fs is null)
        {
            output.WriteLine($"NOT RUN: the real disk-full case needs a loop mount, which failed here ({reason}); the fault-injected ENOSPC tests cover the same paths.");
            return;
        }
        string filler = Path.Combine(fs.MountPoint, "filler");
        // Written, not just sized: a sized file is sparse and takes no space.
        var chunk = new byte[1 << 20];
        using (var file = File.Create(filler))
        {
            for (long left = fs.FreeBytes - (3L << 20); left > 0; left -= chunk.Length)
                file.Write(chunk, 0, (int)Math.Min(left, chunk.Length));
            file.Flush(flushToDisk: true);
        }
        string envPath = Path.Combine(fs.MountPoint, "env");
        var options = new StorageOptions(envPath)
        {
            InitialJournalFileBytes = 256 << 10,
            MaxJournalFileBytes = 512 << 10,
            FlushThresholdBytes = 256 << 10,
            MaxFlushDelay = TimeSpan.FromMilliseconds(5),
            SyncInterval = TimeSpan.FromMilliseconds(10),
        };
        var env = StorageEnvironment.Open(options);
        var acknowledged = new List<int>();
        DiskFullException? full = null;
        for (int i = 0; i < 10_000 && full is null; i++)
        {
            try
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Bytes.Key(i), Bytes.Value(i, 6000));
                tx.Commit();
                acknowledged.Add(i);
            }
            catch (DiskFullException e)
            {
                full = e;
            }
        }
        Assert.NotNull(full);
        Assert.False(env.HasFailed);
        output.WriteLine($"{acknowledged.Count} commits before: {full!.Message}");

        // Space comes back once ext4 has committed the delete; until then a commit may still fail cleanly.
        File.Delete(filler);
        int failedAfterDelete = 0;
        for (int i = 20_000; i < 20_050; i++)
        {
            while (true)
            {
                try
                {
                    using var tx = env.BeginWrite();
                    tx.CreateTree("t").Put(Bytes.Key(i), Bytes.Value(i, 6000));
                    tx.Commit();
                    acknowledged.Add(i);
                    break;
                }
                catch (DiskFullException) when (++failedAfterDelete < 200)
                {
                    Thread.Sleep(50);
                }

            }
        }
        output.WriteLine($"{failedAfterDelete} commits failed for lack of space after the filler was deleted");
        Assert.False(env.HasFailed);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        using (var tx = reopened.BeginRead())
        {
            var tree = tx.OpenTree("t");
            Assert.Equal(acknowledged.Count, tree.Count);
            foreach (int i in acknowledged)
                Assert.Equal(Bytes.Value(i, 6000), tree.Get(Bytes.Key(i)));
        }
        reopened.Verify();
    }
}
