namespace Cairn.Commit;

internal sealed partial class DurableWaiters
{
    /// <summary>
    /// Test hooks of a <see cref="DurableWaiters"/>: what a test observes (how many sleep) and where it holds a thread to
    /// make an interleaving deterministic. Created only when a test asks (<see cref="ForTestingPurposesOnly"/>).
    /// </summary>
    internal sealed class TestHooks(DurableWaiters owner)
    {
        /// <summary>How many committers sleep waiting for their entry's write (or for the lead).</summary>
        public int Waiting => Volatile.Read(ref owner._waiting);

        /// <summary>On a waiting thread whose sleep was interrupted, before it looks whether it was woken meanwhile.</summary>
        public Action? Interrupted { get; set; }
    }
}
