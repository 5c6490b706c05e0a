using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// The close counts open read transactions while the flusher keeps working: its own reader slot may be pinned or
/// let go in the middle of the count. The flusher's slot must never count as, nor hide, a user's read.
/// </summary>
public class CloseCountsReadersTests
{
    [Fact]
    public void A_flush_ending_while_the_close_counts_readers_is_not_an_open_transaction()
    {
        using var dir = new TestDirectory("close-flush-ends");
        var env = Populated(dir.Path);
        var hooks = env.ForTestingPurposesOnly();
        hooks.PinFlusherSlot();
        hooks.ReaderCount.AfterCounted = Once(hooks.UnpinFlusherSlot);

        env.Dispose(); // threw LiveTransactionsException (1 read) when the flusher's slot was judged after the count

        using var reopened = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using var read = reopened.BeginRead();
        Assert.Equal(Bytes.Key(7), read.OpenTree("t").Get(Bytes.Key(1)));
    }

    [Fact]
    public void A_flush_starting_while_the_close_counts_readers_does_not_hide_an_open_read()
    {
        using var dir = new TestDirectory("close-flush-starts");
        var env = Populated(dir.Path);
        var hooks = env.ForTestingPurposesOnly();
        var read = env.BeginRead();
        hooks.ReaderCount.AfterCounted = Once(hooks.PinFlusherSlot);

        var refused = Assert.Throws<LiveTransactionsException>(env.Dispose); // closed under the open read before the fix
        Assert.Contains("(1 read, 0 write)", refused.Message);

        Assert.Equal(Bytes.Key(7), read.OpenTree("t").Get(Bytes.Key(1))); // the read still works: nothing was closed
        read.Dispose();
        hooks.UnpinFlusherSlot();
        env.Dispose();
    }

    private static StorageEnvironment Populated(string path)
    {
        var env = StorageEnvironment.Open(new StorageOptions(path));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Bytes.Key(1), Bytes.Key(7));
            tx.Commit();
        }
        // Nothing left to flush: the background flusher leaves its slot alone, so only the test moves it.
        env.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
        return env;
    }

    private static Action Once(Action action)
    {
        int ran = 0;
        return () =>
        {
            if (Interlocked.Exchange(ref ran, 1) == 0)
                action();
        };
    }
}
