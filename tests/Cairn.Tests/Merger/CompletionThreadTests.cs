using Cairn.Tests.Support;
using static Cairn.Tests.Merger.MergerTestSupport;

namespace Cairn.Tests.Merger;

/// <summary>
/// Where a <c>WriteAsync</c> caller's continuation runs (issue 29): never on the merger's thread, which holds the write
/// lock for its whole chain of transactions and is the only thread that runs merged operations. A continuation that
/// then waits for another merged write, blocking (<c>Write</c>, or a task waited on), or that begins its own write
/// transaction, must finish instead of waiting for the thread it runs on.
/// </summary>
public class CompletionThreadTests
{
    // Only a deadlock reaches it.
    private static readonly TimeSpan HangCeiling = TimeSpan.FromMinutes(5);

    [Fact]
    public async Task A_continuation_that_blocks_on_more_writes_and_begins_its_own_transaction_completes()
    {
        using var dir = new TestDirectory("merger-completion-thread");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        // Out of the test framework's synchronization context, and with ConfigureAwait(false): each continuation runs
        // on the thread that completed the caller's task.
        var work = Task.Run(async () =>
        {
            for (int i = 0; i < 20; i++)
            {
                await env.WriteAsync(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 10))); })
                    .ConfigureAwait(false);
                env.Write(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k + 100), Bytes.Value(k, 20))); });
                if (!env.WriteAsync(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k + 200), Bytes.Value(k, 30))); })
                        .AsTask().Wait(HangCeiling))
                    throw new TimeoutException("A merged write waited on from a continuation never completed.");
                using var tx = env.BeginWrite();
                Put(tx, new PutRequest(Bytes.Key(i + 300), Bytes.Value(i, 40)));
                tx.Commit();
            }
        });
        await work.WaitAsync(HangCeiling);
        for (int i = 0; i < 20; i++)
        {
            Assert.Equal(Bytes.Value(i, 10), Read(env, Bytes.Key(i)));
            Assert.Equal(Bytes.Value(i, 20), Read(env, Bytes.Key(i + 100)));
            Assert.Equal(Bytes.Value(i, 30), Read(env, Bytes.Key(i + 200)));
            Assert.Equal(Bytes.Value(i, 40), Read(env, Bytes.Key(i + 300)));
        }
    }
}
