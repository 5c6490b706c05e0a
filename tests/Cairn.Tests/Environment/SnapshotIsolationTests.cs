using System.Buffers.Binary;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

public class SnapshotIsolationTests
{
    /// <summary>
    /// A writer keeps committing transactions that rewrite every key with the transaction's number
    /// (and add and remove keys); readers on several threads check that everything they read in one
    /// snapshot carries the same number, twice over, while the writer moves on.
    /// </summary>
    [Fact]
    public async Task Readers_see_a_stable_snapshot_while_the_writer_commits()
    {
        using var dir = new TestDirectory("snapshot");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { FlushThresholdBytes = 1 << 20 });
        const int keys = 400;
        using (var tx = env.BeginWrite())
        {
            var t = tx.CreateTree("t");
            for (int k = 0; k < keys; k++)
                t.Put(Bytes.Key(k), Stamp(0, 120));
            tx.Commit();
        }

        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(4));
        long commits = 0, snapshotsChecked = 0;
        // Dedicated threads: on two cores, thread-pool tasks that spin like these can starve each other.
        var writer = Task.Factory.StartNew(() =>
        {
            for (long round = 1; !stop.IsCancellationRequested; round++)
            {
                using var tx = env.BeginWrite();
                var t = tx.OpenTree("t");
                for (int k = 0; k < keys; k++)
                    t.Put(Bytes.Key(k), Stamp(round, 60 + (int)(round % 200)));
                // churn: extra keys come and go so pages split, merge and get freed
                for (int k = 0; k < 50; k++)
                {
                    if (round % 2 == 0)
                        t.Put(Bytes.Key(keys + k), Stamp(round, 2000));
                    else
                        t.Delete(Bytes.Key(keys + k));
                }
                tx.Commit();
                Interlocked.Increment(ref commits);
            }
        }, TaskCreationOptions.LongRunning);
        var readers = Enumerable.Range(0, 3).Select(_ => Task.Factory.StartNew(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                using var tx = env.BeginRead();
                var t = tx.OpenTree("t");
                long expected = ReadRound(t, keys);
                Thread.Yield(); // let the writer commit in between
                Assert.Equal(expected, ReadRound(t, keys));
                Interlocked.Increment(ref snapshotsChecked);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        await Task.WhenAll([writer, .. readers]);
        Assert.True(commits > 20, $"only {commits} commits");
        Assert.True(snapshotsChecked > 20, $"only {snapshotsChecked} snapshots checked");
        env.Verify();
    }

    [Fact]
    public async Task A_read_transaction_can_cross_awaits()
    {
        using var dir = new TestDirectory("snapshot-async");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Bytes.Key(1), Stamp(1, 10));
            tx.Commit();
        }
        using var read = env.BeginRead();
        await Task.Yield();
        await Task.Run(() =>
        {
            using var tx = env.BeginWrite();
            tx.OpenTree("t").Put(Bytes.Key(1), Stamp(2, 10));
            tx.Commit();
        });
        await Task.Delay(1);
        Assert.True(read.OpenTree("t").TryGet(Bytes.Key(1), out var value));
        Assert.Equal(1, BinaryPrimitives.ReadInt64LittleEndian(value));
    }

    private static long ReadRound(Tree t, int keys)
    {
        long round = -1;
        for (int k = 0; k < keys; k++)
        {
            Assert.True(t.TryGet(Bytes.Key(k), out var value));
            long stamp = BinaryPrimitives.ReadInt64LittleEndian(value);
            if (round == -1)
                round = stamp;
            Assert.Equal(round, stamp);
        }
        // the churn keys are all present on even rounds and all absent on odd ones
        int present = 0;
        for (int k = 0; k < 50; k++)
            if (t.TryGet(Bytes.Key(keys + k), out _))
                present++;
        Assert.Equal(round % 2 == 0 && round > 0 ? 50 : 0, present);
        return round;
    }

    private static byte[] Stamp(long round, int length)
    {
        var value = new byte[Math.Max(8, length)];
        BinaryPrimitives.WriteInt64LittleEndian(value, round);
        return value;
    }
}
