using System.Collections.Concurrent;
using Cairn.Tests.Support;

namespace Cairn.Tests.Commit;

/// <summary>
/// The id a transaction commits as, the same on every path (issue 30, item 7): <see cref="WriteTransaction.Commit()"/>
/// returns it and <see cref="WriteTransaction.CommitTransactionId"/> says it inside the transaction, for durable, lazy
/// and group commits, merged operations alone and under load, and branches. Checked against what the id means
/// elsewhere: a backup's <see cref="BackupResult.TransactionId"/>, and a replica's
/// <see cref="StorageEnvironment.LastAppliedTransactionId"/>, which holds a key exactly from the id it was acknowledged with.
/// </summary>
public sealed class CommittedTransactionIdTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(2);

    private static StorageOptions Options(string directory) => JournalKeepingOptions.For(directory);

    private static byte[] Key(string name) => System.Text.Encoding.UTF8.GetBytes(name);

    /// <summary>Commits through every path, each key with the id its commit returned (or its operation read), checked as it goes.</summary>
    private static async Task<ConcurrentDictionary<string, long>> CommitEveryWay(StorageEnvironment env, string prefix)
    {
        var acknowledged = new ConcurrentDictionary<string, long>();

        // BeginWrite, durable: the id read inside is the one returned, and the one the environment reports.
        using (var tx = env.BeginWrite())
        {
            long inside = tx.CommitTransactionId;
            Assert.Equal(tx.TransactionId + 1, inside);
            tx.CreateTree("t").Put(Key(prefix + "durable"), "v"u8);
            long committed = tx.Commit();
            Assert.Equal(inside, committed);
            Assert.Equal(env.LastCommittedTransactionId, committed);
            Assert.Equal(committed, env.LastDurableTransactionId);
            acknowledged[prefix + "durable"] = committed;
        }

        // Lazy: the same id, published at once, durable after FlushJournal.
        using (var tx = env.BeginWrite())
        {
            long inside = tx.CommitTransactionId;
            tx.CreateTree("t").Put(Key(prefix + "lazy"), "v"u8);
            long committed = tx.Commit(CommitMode.Lazy);
            Assert.Equal(inside, committed);
            Assert.Equal(env.LastCommittedTransactionId, committed);
            env.FlushJournal();
            Assert.True(env.LastDurableTransactionId >= committed);
            acknowledged[prefix + "lazy"] = committed;
        }

        // A transaction that changes nothing commits no transaction of its own: it returns the id it read.
        using (var tx = env.BeginWrite())
        {
            long read = tx.TransactionId;
            Assert.Equal(read, tx.Commit());
            Assert.Equal(read, env.LastCommittedTransactionId);
        }

        // Group commit: concurrent BeginWrite writers, durable commits, each one's own id.
        long before = env.LastCommittedTransactionId;
        var writers = Enumerable.Range(0, 6).Select(w => Task.Run(() =>
        {
            for (int i = 0; i < 15; i++)
            {
                using var tx = env.BeginWrite();
                long inside = tx.CommitTransactionId;
                string key = $"{prefix}group-{w}-{i}";
                tx.CreateTree("t").Put(Key(key), "v"u8);
                long committed = tx.Commit(CommitMode.Durable);
                Assert.Equal(inside, committed);
                Assert.True(env.LastDurableTransactionId >= committed);
                acknowledged[key] = committed;
            }
        })).ToArray();
        await Task.WhenAll(writers).WaitAsync(Patience);
        var groupIds = acknowledged.Where(p => p.Key.StartsWith(prefix + "group-", StringComparison.Ordinal)).Select(p => p.Value).Order().ToList();
        Assert.Equal(Enumerable.Range(1, 90).Select(i => before + i), groupIds); // one transaction each, no id twice or skipped

        // A merged operation alone, through WriteAsync and through the blocking Write.
        long alone = await env.WriteAsync(prefix + "async-alone", static (tx, key) =>
        {
            tx.CreateTree("t").Put(Key(key), "v"u8);
            return tx.CommitTransactionId;
        });
        Assert.Equal(env.LastCommittedTransactionId, alone);
        acknowledged[prefix + "async-alone"] = alone;
        long blocking = env.Write(prefix + "write-alone", static (tx, key) =>
        {
            tx.CreateTree("t").Put(Key(key), "v"u8);
            return tx.CommitTransactionId;
        });
        Assert.Equal(env.LastCommittedTransactionId, blocking);
        acknowledged[prefix + "write-alone"] = blocking;

        // Merged operations under load: many per transaction, each reads the id of the transaction it ends up in.
        before = env.LastCommittedTransactionId;
        var callers = Enumerable.Range(0, 16).Select(c => Task.Run(async () =>
        {
            for (int i = 0; i < 40; i++)
            {
                string key = $"{prefix}merged-{c}-{i}";
                long id = await env.WriteAsync(key, static (tx, k) =>
                {
                    tx.CreateTree("t").Put(Key(k), "v"u8);
                    return tx.CommitTransactionId;
                });
                Assert.True(env.LastDurableTransactionId >= id);
                acknowledged[key] = id;
            }
        })).ToArray();
        await Task.WhenAll(callers).WaitAsync(Patience);
        var mergedIds = acknowledged.Where(p => p.Key.StartsWith(prefix + "merged-", StringComparison.Ordinal)).Select(p => p.Value).Distinct().Order().ToList();
        Assert.Equal(Enumerable.Range(1, (int)(env.LastCommittedTransactionId - before)).Select(i => before + i), mergedIds);
        return acknowledged;
    }

    /// <summary>
    /// Applies <paramref name="source"/>'s entries after <paramref name="backupAt"/> to a replica of its backup one by one:
    /// after each, the replica holds exactly the keys acknowledged with an id up to its <c>LastAppliedTransactionId</c>.
    /// </summary>
    private static void AssertReplicaFollowsTheIds(StorageEnvironment source, string replicaPath, long backupAt, IReadOnlyDictionary<string, long> acknowledged)
    {
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(replicaPath));
        Assert.Equal(backupAt, replica.LastAppliedTransactionId);
        var byId = acknowledged.GroupBy(p => p.Value).ToDictionary(g => g.Key, g => g.Select(p => p.Key).ToList());
        Assert.All(acknowledged, p => Assert.True(p.Value > backupAt, $"{p.Key} acknowledged with {p.Value}, not after the backup's {backupAt}"));
        foreach (var entry in source.ReadJournalEntries(backupAt).ToList())
        {
            AssertHolds(replica, byId.GetValueOrDefault(entry.TransactionId) ?? [], expected: false);
            replica.Apply(entry);
            Assert.Equal(entry.TransactionId, replica.LastAppliedTransactionId);
            AssertHolds(replica, byId.GetValueOrDefault(entry.TransactionId) ?? [], expected: true);
        }
        Assert.Equal(source.LastCommittedTransactionId, replica.LastAppliedTransactionId);
    }

    private static void AssertHolds(ReplicaEnvironment env, List<string> keys, bool expected)
    {
        using var read = env.BeginRead();
        if (!read.TryOpenTree("t", out var tree))
        {
            Assert.True(!expected || keys.Count == 0);
            return;
        }
        foreach (string key in keys)
            Assert.True(tree.TryGet(Key(key), out _) == expected, $"'{key}' {(expected ? "missing" : "present")} at {env.LastAppliedTransactionId}");
    }

    /// <summary>One commit, then a backup with nothing else committing: the backup holds exactly up to the acknowledged id.</summary>
    private static long SeedAndBackUp(StorageEnvironment env, string backupPath)
    {
        long seed;
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("seed"u8, "v"u8);
            seed = tx.Commit();
        }
        var backup = env.Backup(backupPath);
        Assert.Equal(seed, backup.TransactionId);
        return backup.TransactionId;
    }

    [Fact]
    public async Task Every_path_gives_the_id_the_transaction_commits_as_and_backups_and_replicas_count_the_same()
    {
        using var dir = new TestDirectory("committed-ids");
        using var env = StorageEnvironment.Open(Options(dir.File("primary")));
        long backupAt = SeedAndBackUp(env, dir.File("replica"));
        var acknowledged = await CommitEveryWay(env, "p-");
        AssertReplicaFollowsTheIds(env, dir.File("replica"), backupAt, acknowledged);
    }

    [Fact]
    public async Task A_branch_commits_as_its_own_ids_on_every_path()
    {
        using var dir = new TestDirectory("committed-ids-branch");
        using var root = StorageEnvironment.Open(Options(dir.File("root")));
        using var branch = root.OpenBranch(Options(dir.File("branch")));
        long backupAt = SeedAndBackUp(branch, dir.File("replica"));
        // The root commits meanwhile: its ids are its own and do not move the branch's.
        var rootWriter = Task.Run(() =>
        {
            for (int i = 0; i < 50; i++)
            {
                using var tx = root.BeginWrite();
                tx.CreateTree("r").Put(Key($"r{i}"), "v"u8);
                Assert.Equal(root.LastCommittedTransactionId + 1, tx.CommitTransactionId);
                tx.Commit();
            }
        });
        var acknowledged = await CommitEveryWay(branch, "b-");
        await rootWriter.WaitAsync(Patience);
        Assert.True(branch.SharesRootJournal);
        AssertReplicaFollowsTheIds(branch, dir.File("replica"), backupAt, acknowledged);
    }
}
