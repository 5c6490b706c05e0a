using Cairn.Paging;

namespace Cairn.Transactions;

internal sealed unsafe partial class StatePublisher
{
    /// <summary>States no commit makes, published for a test (tests only; it holds no state).</summary>
    internal TestHooks ForTestingPurposesOnly() => new(this);

    /// <summary>Publishes states no commit makes, to show that verification finds them.</summary>
    internal sealed class TestHooks(StatePublisher publisher)
    {
        /// <summary>Publishes the current state with its page table edited (see EnvironmentTestHooks.EditPageTable).</summary>
        public void PublishEditedPages(Func<PageTable, PageTable> edit)
        {
            lock (publisher._stateLock)
            {
                var current = publisher._current;
                publisher.PublishLocked(current.WithPages(current.Epoch + 1, edit(current.Pages), current.View), publisher._reclaimer.Rent());
            }
        }
    }
}
