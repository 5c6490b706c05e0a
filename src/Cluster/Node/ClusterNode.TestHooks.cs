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
    }
}
