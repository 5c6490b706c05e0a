namespace Cairn.Flushing;

internal sealed partial class FlushScheduler
{
    /// <summary>The steps of the background cycle a test runs by itself (tests only; it holds no state).</summary>
    internal TestHooks ForTestingPurposesOnly() => new(this);

    /// <summary>Steps of the background cycle run on the test's thread, under the flush gate as the cycle runs them.</summary>
    internal sealed class TestHooks(FlushScheduler scheduler)
    {
        /// <summary>A flush and a sync as the background cycle does them (the older header copy is not caught up).</summary>
        public void FlushAndSyncAsTheFlusherDoes()
        {
            lock (scheduler._flushGate)
            {
                scheduler.FlushOnce();
                scheduler.SyncOnce();
            }
        }

        /// <summary>A flush without the sync that would normally follow it, leaving flushed pages unsynced.</summary>
        public void FlushWithoutSync()
        {
            lock (scheduler._flushGate)
                scheduler.FlushOnce();
        }
    }
}
