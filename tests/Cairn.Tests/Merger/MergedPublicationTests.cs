using Cairn.Tests.Support;
using static Cairn.Tests.Merger.MergerTestSupport;

namespace Cairn.Tests.Merger;

/// <summary>
/// A merged transaction's state is built before its entry is written (the next transaction runs on it meanwhile) and,
/// if nothing was published in between, that very object is published (issue 29): it must then carry its own place
/// among published states and where its entry ends, not its base's, or reclamation and the sync would go by the
/// wrong ones.
/// </summary>
public class MergedPublicationTests
{
    [Fact]
    public async Task Each_published_merged_state_has_its_own_epoch_and_the_end_of_its_own_entry()
    {
        using var dir = new TestDirectory("merger-publication");
        // No flush or sync during the test: every state is a commit's.
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path)
        {
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            InitialJournalFileBytes = 16L << 20,
        });
        var states = env.Parts.States;
        // The first write starts the journal (the opened state has no position in it yet).
        await env.WriteAsync(0, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 100))); });
        var previous = states.Current;
        for (int i = 1; i < 50; i++)
        {
            await env.WriteAsync(i, static (tx, k) => { Put(tx, new PutRequest(Bytes.Key(k), Bytes.Value(k, 100))); });
            var published = states.Current;
            Assert.True(published.TransactionId == previous.TransactionId + 1 && published.Epoch == previous.Epoch + 1,
                $"write {i}: transaction {previous.TransactionId} -> {published.TransactionId}, epoch {previous.Epoch} -> {published.Epoch}");
            Assert.Equal(previous.JournalPosition.Sequence, published.JournalPosition.Sequence);
            Assert.True(published.JournalPosition.EndOffset > previous.JournalPosition.EndOffset,
                $"transaction {published.TransactionId}'s entry ends at {published.JournalPosition.EndOffset}, its predecessor's at {previous.JournalPosition.EndOffset}");
            previous = published;
        }

        // The last position is where the journal ends: a reopen replays exactly the fifty entries.
        env.Dispose();
        using var reopened = StorageEnvironment.Open(new StorageOptions(dir.Path));
        for (int i = 0; i < 50; i++)
            Assert.Equal(Bytes.Value(i, 100), Read(reopened, Bytes.Key(i)));
    }
}
