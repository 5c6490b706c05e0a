using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>Many writers at once on a three-node cluster, so the leader batches what waits into each entry.</summary>
public sealed class ConcurrentWritersTests
{
    private const string Tree = "orders";
    private const int Writers = 24;
    private const int WritesEach = 15;

    [Fact]
    public async Task Every_acknowledged_write_of_many_concurrent_writers_is_on_every_node_and_the_dumps_are_equal()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-concurrent");
        var deadline = Eventually.Deadline();
        var clients = Enumerable.Range(0, Writers).Select(_ => new ClusterClient(cluster.Connections)).ToArray();
        try
        {
            var acknowledged = await Task.WhenAll(clients.Select((client, writer) => Task.Run(async () =>
            {
                var written = new List<(byte[] Key, byte[] Value)>();
                for (var i = 0; i < WritesEach; i++)
                {
                    var key = BitConverter.GetBytes(writer * 1000 + i);
                    var value = BitConverter.GetBytes(writer * 7L + i);
                    await client.WriteAsync(Tree, [ClusterOperation.Put(key, value)], deadline);
                    written.Add((key, value));
                }

                return written;
            })));

            var lastIndex = clients.Max(client => client.LastWriteIndex);
            await cluster.ConvergedAsync(lastIndex);
            for (var node = 0; node < 3; node++)
            {
                foreach (var (key, value) in acknowledged.SelectMany(written => written))
                    Assert.Equal(value, await cluster[node].ReadAppliedAsync(Tree, key, lastIndex, deadline));
            }

            cluster.AssertConvergedAndVerified();
        }
        finally
        {
            foreach (var client in clients)
                client.Dispose();
        }
    }
}
