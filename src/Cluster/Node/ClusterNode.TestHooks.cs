using Cairn.Cluster.Node;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    private Action<int>? afterRefusedAdd; // tests only: set through ForTestingPurposesOnly

    /// <summary>What only tests may do to a node (the pattern of <see cref="StorageEnvironment"/>'s).</summary>
    internal TestHooks ForTestingPurposesOnly() => new(this);

    internal sealed class TestHooks(ClusterNode node)
    {
        /// <summary>
        /// Runs <paramref name="hook"/> (with the attempt's number) each time DotNext refuses an add with nothing
        /// changed, before the node pauses to ask again: a test mends the fault that made the node fall behind there.
        /// </summary>
        public void AfterRefusedAdd(Action<int> hook) => node.afterRefusedAdd = hook;

        /// <summary>
        /// Timestamps this node's replication stages into <paramref name="recorder"/> from now on (the bench's split
        /// of a round, docs/benchmarks.md); null stops it.
        /// </summary>
        public void RecordRounds(RoundRecorder? recorder)
        {
            node.batcher.Rounds = recorder;
            node.log.Rounds = recorder;
            node.stateMachine.Rounds = recorder;
        }
    }
}
