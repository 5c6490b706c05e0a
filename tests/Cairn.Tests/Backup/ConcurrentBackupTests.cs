using System.Buffers.Binary;
using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>A backup taken while many writers commit is one transaction's state, and scratch memory stays bounded while it runs.</summary>
public class ConcurrentBackupTests
{
    private const int MergedCallers = 16;
    private const int Writers = MergedCallers + 1; // the last one uses BeginWrite

    /// <summary>
    /// Each operation writes, in its transaction: its transaction's id into "ids", its own key (caller, n) into
    /// "ops", and n into "last" under its caller. So the copy must hold every id from the first to the reported
    /// one and no other, each caller's operations 0..last with nothing missing, every operation acknowledged
    /// before the backup began, and none started after it returned.
    /// </summary>
    [Fact]
    public async Task Backup_under_sixteen_merged_callers_and_a_writer_holds_exactly_the_transactions_up_to_its_id()
    {
        using var dir = new TestDirectory("backup-concurrent");
        string copy = Path.Combine(dir.Path, "copy");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env"))
        {
            MaxFlushDelay = TimeSpan.FromMilliseconds(5), FlushThresholdBytes = 1 << 20,
        });
        BackupContent.Fill(env, "filler", 0, 10_000, 500); // a data file of several MiB, so the copy takes a while
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("ids");
            tx.CreateTree("ops");
            tx.CreateTree("last");
            tx.Commit();
        }
        long firstWorkloadId = env.LastCommittedTransactionId + 1;
        var started = new long[Writers];
        var acknowledged = new long[Writers];
        using var stop = new CancellationTokenSource();
        var tasks = new List<Task>();
        for (int c = 0; c < MergedCallers; c++)
        {
            int caller = c;
            tasks.Add(Task.Run(async () =>
            {
                for (long n = 0; !stop.IsCancellationRequested; n++)
                {
                    Volatile.Write(ref started[caller], n + 1);
                    await env.WriteAsync((caller, n), static (tx, s) => Operation(tx, s.caller, s.n));
                    Volatile.Write(ref acknowledged[caller], n + 1);
                }
            }));
        }
        tasks.Add(Task.Run(() =>
        {
            for (long n = 0; !stop.IsCancellationRequested; n++)
            {
                Volatile.Write(ref started[MergedCallers], n + 1);
                using var tx = env.BeginWrite();
                Operation(tx, MergedCallers, n);
                tx.Commit();
                Volatile.Write(ref acknowledged[MergedCallers], n + 1);
            }
        }));
        while (acknowledged.Any(a => Volatile.Read(ref a) < 10))
            await Task.Delay(1);

        var acknowledgedBefore = acknowledged.Select(a => Volatile.Read(ref a)).ToArray();
        long idBefore = env.LastCommittedTransactionId;
        var result = await Task.Run(() => env.Backup(copy));
        var startedAfter = started.Select(s => Volatile.Read(ref s)).ToArray();
        long idAfter = env.LastCommittedTransactionId;
        await stop.CancelAsync();
        await Task.WhenAll(tasks);

        Assert.InRange(result.TransactionId, idBefore, idAfter);
        using var restored = StorageEnvironment.Open(new StorageOptions(copy));
        Assert.Equal(result.TransactionId, restored.LastCommittedTransactionId);
        restored.Verify();
        using var read = restored.BeginRead();
        var ids = read.OpenTree("ids");
        Assert.Equal(result.TransactionId - firstWorkloadId + 1, ids.Count);
        using (var cursor = ids.CreateCursor())
        {
            Assert.True(cursor.SeekFirst());
            Assert.Equal(firstWorkloadId, BinaryPrimitives.ReadInt64BigEndian(cursor.Key));
            Assert.True(cursor.SeekLast());
            Assert.Equal(result.TransactionId, BinaryPrimitives.ReadInt64BigEndian(cursor.Key));
        }
        var ops = read.OpenTree("ops");
        var last = read.OpenTree("last");
        long total = 0;
        for (int c = 0; c < Writers; c++)
        {
            long n = BinaryPrimitives.ReadInt64BigEndian(last.Get(CallerKey(c))!);
            Assert.InRange(n + 1, acknowledgedBefore[c], startedAfter[c]); // an operation in flight may be durable, and in the copy, before its caller hears
            using var cursor = ops.CreateCursor();
            long count = 0;
            for (bool more = cursor.SeekPrefix(CallerKey(c)); more; more = cursor.MoveNext())
            {
                if (!cursor.Key.StartsWith(CallerKey(c)))
                    break;
                Assert.Equal(count, BinaryPrimitives.ReadInt64BigEndian(cursor.Key[4..]));
                count++;
            }
            Assert.Equal(n + 1, count);
            total += count;
        }
        Assert.Equal(total, ops.Count);
    }

    private static void Operation(WriteTransaction tx, int caller, long n)
    {
        Span<byte> id = stackalloc byte[8];
        BinaryPrimitives.WriteInt64BigEndian(id, tx.TransactionId + 1); // the transaction this one commits as
        tx.OpenTree("ids").Put(id, [1]);
        Span<byte> op = stackalloc byte[12];
        CallerKey(caller).CopyTo(op);
        BinaryPrimitives.WriteInt64BigEndian(op[4..], n);
        tx.OpenTree("ops").Put(op, Bytes.Value(n, 64));
        Span<byte> value = stackalloc byte[8];
        BinaryPrimitives.WriteInt64BigEndian(value, n);
        tx.OpenTree("last").Put(CallerKey(caller), value);
    }

    private static byte[] CallerKey(int caller)
    {
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, caller);
        return key;
    }

    /// <summary>
    /// While the backup copies, commits write several times the scratch limit; the flusher keeps flushing (only
    /// its syncs wait), so scratch memory never passes the limit, and the journals carry the difference on disk.
    /// </summary>
    [Fact]
    public void Scratch_memory_stays_within_its_limit_during_a_long_backup()
    {
        const long limit = 16L << 20;
        using var dir = new TestDirectory("backup-scratch");
        using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env"))
        {
            MaxScratchBytes = limit, FlushThresholdBytes = 2L << 20, MaxJournalFileBytes = 8L << 20,
        });
        BackupContent.Fill(env, "t", 0, 20_000, 400);
        env.Checkpoint();
        long journalBytesAtStart = env.JournalBytesOnDisk;
        long dataFileBytes = new FileInfo(Path.Combine(dir.Path, "env", StorageEnvironment.DataFileName)).Length;
        long written = 0, peak = 0;
        int round = 0;
        var progress = new InlineProgress(p =>
        {
            // The data file is copied first: commits while it is read are in the copy, later ones are not.
            if (p.BytesDone >= dataFileBytes)
                return;
            // About 12 MiB of changed values per MiB copied.
            for (int i = 0; i < 3; i++)
            {
                BackupContent.Fill(env, "t", 0, 10_000, 400, seed: ++round);
                written += 10_000 * 400;
                peak = Math.Max(peak, env.ScratchBytesInUse);
            }
        });
        var result = env.Backup(Path.Combine(dir.Path, "copy"), new BackupOptions { Progress = progress }, CancellationToken.None);

        Assert.True(written >= 4 * limit, $"the backup ran long enough to matter: {written} bytes written, limit {limit}");
        Assert.InRange(peak, 0, limit);
        Assert.True(env.JournalBytesOnDisk > journalBytesAtStart, "the journals written during the backup were kept");
        Assert.Equal(env.LastCommittedTransactionId, result.TransactionId);
        env.Checkpoint();
        Assert.Equal(env.LastCommittedTransactionId, env.LastSyncedTransactionId);
        BackupContent.AssertEqual(BackupContent.ReadAll(env), BackupContent.ReadAll(Path.Combine(dir.Path, "copy")));
    }
}
