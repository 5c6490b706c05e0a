namespace Cairn.Cluster.Tests.Linearizability;

public class HistoryRecorderTests
{
    /// <summary>
    /// Clients on many threads record around each operation on a store that holds one lock per operation (so it is
    /// linearizable): every operation is recorded once, completes after its invoke, and the history checks
    /// linearizable, before and after a round trip through its text form.
    /// </summary>
    [Fact]
    public async Task Concurrent_clients_record_a_linearizable_history_of_a_locked_store()
    {
        var recorder = new HistoryRecorder();
        var store = new Dictionary<string, string>();
        var storeLock = new Lock(); // protects store
        const int Clients = 8, PerClient = 400;
        await Task.WhenAll(Enumerable.Range(0, Clients).Select(client => Task.Run(() =>
        {
            var random = new Random(client);
            for (int i = 0; i < PerClient; i++)
            {
                string key = $"k{random.Next(5)}";
                if (random.Next(2) == 0)
                {
                    string value = $"c{client}-{i}";
                    var pending = recorder.Invoke(client, OperationCall.Put(key, value));
                    lock (storeLock)
                        store[key] = value;
                    pending.Ok();
                }
                else
                {
                    var pending = recorder.Invoke(client, OperationCall.Get(key));
                    string? read;
                    lock (storeLock)
                        read = store.GetValueOrDefault(key);
                    pending.OkRead(read);
                }
            }
        })));
        var history = recorder.ToHistory();
        Assert.Equal(Clients * PerClient, history.Operations.Count);
        Assert.Equal(Enumerable.Range(0, Clients * PerClient), history.Operations.Select(o => o.Id));
        Assert.All(history.Operations, o => Assert.True(o.Completion.Outcome == Outcome.Ok && o.Completion.At >= o.InvokedAt));
        var result = LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance);
        Assert.True(result.Verdict == Verdict.Linearizable, result.Explain());
        var replayed = HistoryText.Parse(HistoryText.Write(history));
        Assert.Equal(history.Operations, replayed.Operations);
        Assert.Equal(Verdict.Linearizable, LinearizabilityChecker.Check(replayed, KeyValueRegisterModel.Instance).Verdict);
    }

    [Fact]
    public void Every_outcome_is_recorded_and_an_operation_left_pending_is_unknown_with_no_end()
    {
        var recorder = new HistoryRecorder();
        recorder.Invoke(1, OperationCall.Put("x", "a")).Ok();
        recorder.Invoke(2, OperationCall.CompareAndSet("x", "a", "b")).OkSwapped(true);
        recorder.Invoke(3, OperationCall.Delete("x")).Fail();
        recorder.Invoke(4, OperationCall.Put("x", "c")).Unknown();
        recorder.Invoke(5, OperationCall.Get("x"));
        var ops = recorder.ToHistory().Operations;
        Assert.Equal([Outcome.Ok, Outcome.Ok, Outcome.Fail, Outcome.Unknown, Outcome.Unknown], ops.Select(o => o.Completion.Outcome));
        Assert.True(ops[1].Completion.Swapped);
        Assert.NotNull(ops[3].Completion.At);
        Assert.Null(ops[4].Completion.At);
        Assert.Equal(long.MaxValue, ops[3].ReturnForCheck);
    }

    [Fact]
    public void Completing_twice_or_with_a_result_of_the_wrong_kind_throws()
    {
        var recorder = new HistoryRecorder();
        var put = recorder.Invoke(1, OperationCall.Put("x", "a"));
        put.Ok();
        Assert.Throws<InvalidOperationException>(put.Unknown);
        var get = recorder.Invoke(1, OperationCall.Get("x"));
        Assert.Throws<InvalidOperationException>(get.Ok);
        Assert.Throws<InvalidOperationException>(() => get.OkSwapped(true));
        get.OkRead(null);
        Assert.Equal(2, recorder.ToHistory().Operations.Count);
    }
}
