using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>What a linearizable read costs the log (found by the process nemesis campaigns: every read appended an entry).</summary>
public sealed class ReadIndexTests
{
    [Fact]
    public async Task Linearizable_reads_append_one_no_op_per_leader_term_not_one_per_read()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-read-index");
        using var client = new ClusterClient(cluster.Connections);
        var deadline = Eventually.Deadline();
        // No write in the leader's term: only its read no-op can show the term committed (DotNext applies an empty
        // entry itself, so the state machine never sees that entry's term).
        Assert.Null(await client.ReadAsync("t", [1], deadline));
        var (termBefore, commitBefore) = LeaderTermAndCommit(cluster);

        for (var i = 0; i < 20; i++)
            Assert.Null(await client.ReadAsync("t", [1], deadline));

        // A leader change on a loaded machine is allowed for: a new term may append its election's no-op and one read no-op.
        var (termAfter, commitAfter) = LeaderTermAndCommit(cluster);
        Assert.True(commitAfter - commitBefore <= 2 * (termAfter - termBefore),
            $"20 reads moved the commit index from {commitBefore} to {commitAfter} in terms {termBefore} to {termAfter}: {cluster.Describe()}");
    }

    private static (long Term, long Commit) LeaderTermAndCommit(ClusterNodes cluster)
        => (Enumerable.Range(0, cluster.Count).Max(i => cluster[i].Term), Enumerable.Range(0, cluster.Count).Max(i => cluster[i].CommitIndex));
}
