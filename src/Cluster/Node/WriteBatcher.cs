using System.Diagnostics;
using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;

namespace Cairn.Cluster.Node;

/// <summary>
/// The leader's writes, one Raft entry per replication round (the merger's idea one level up): while one entry is
/// being replicated, new commands queue; the next entry carries every command queued since, up to
/// <c>maxCommands</c> and <c>maxBytes</c> (a command larger than that goes alone). So the log flush on the leader and
/// on the followers, the round trip and the apply transaction are paid once per round, not once per command. The
/// first command into an idle batcher is sent at once, so a lone writer waits for nothing extra.
/// When an entry completes, the next one waits (at most <c>rejoinWait</c>) until as many commands queue as the
/// completed entry carried: busy writers whose command just completed come back with their next one and ride the
/// same entry as those that queued during the round, instead of the two groups alternating entries, each waiting a
/// whole round in the queue (docs/decisions.md, "stop 42, A"). A lone writer's next command meets that count by
/// itself and goes at once.
/// Each writer learns its own command's outcome; an exception from <c>replicate</c> reaches every writer of that
/// entry (the node maps it to "not appended" or "outcome unknown", <see cref="ClusterNode.WriteAsync"/>).
/// </summary>
internal sealed class WriteBatcher(int maxCommands, int maxBytes, Func<ReadOnlyMemory<byte>, ApplyWaiter, Task> replicate, TimeSpan? rejoinWait = null)
{
    /// <summary>
    /// The longest the next entry waits for the writers of the one just completed: the timer's grain (1 ms), so at
    /// most that much is added to a command queued behind writers that do not come back.
    /// </summary>
    internal static readonly TimeSpan DefaultRejoinWait = TimeSpan.FromMilliseconds(1);

    private readonly TimeSpan rejoinWait = rejoinWait ?? DefaultRejoinWait;
    private readonly Lock gate = new(); // protects queue, sending, rejoinTarget and rejoined
    private readonly Queue<QueuedWrite> queue = new();
    private bool sending; // a SendAsync loop runs; it takes whatever queues until the queue is empty
    private int rejoinTarget; // queued commands at which the writers of the entry just completed count as back
    private TaskCompletionSource? rejoined; // set while the sender waits for them; completed when the queue reaches rejoinTarget
    private long entries; // entries replicated (or attempted); written by the one SendAsync loop, read by any thread
    private long commands; // the commands those entries carried; the same

    /// <summary>The bench's stage recorder (set through the node's test hooks); null otherwise.</summary>
    public RoundRecorder? Rounds { get; set; }

    /// <summary>Entries this batcher handed to Raft.</summary>
    public long Entries => Volatile.Read(ref entries);

    /// <summary>Commands those entries carried.</summary>
    public long Commands => Volatile.Read(ref commands);

    /// <summary>Queues <paramref name="command"/> for the next entry; completes with its outcome once this node applied that entry.</summary>
    public Task<ApplyOutcome> SubmitAsync(ClusterCommand command)
    {
        var body = new byte[CommandCodec.BodySize(command)];
        CommandCodec.WriteBody(command, body);
        var write = new QueuedWrite(command.Id, body);
        bool start;
        lock (gate)
        {
            queue.Enqueue(write);
            start = !sending;
            sending = true;
            if (rejoined is not null && queue.Count >= rejoinTarget)
            {
                rejoined.TrySetResult();
                rejoined = null;
            }
        }

        if (start)
            _ = SendAsync();
        return write.Task;
    }

    /// <summary>Sends entries until the queue is empty; never throws (each entry's failure goes to its writers).</summary>
    private async Task SendAsync()
    {
        while (true)
        {
            QueuedWrite[] batch;
            lock (gate)
            {
                if (queue.Count == 0)
                {
                    sending = false;
                    return;
                }

                batch = TakeBatch();
            }

            await SendEntryAsync(batch).ConfigureAwait(false);
            await AwaitRejoinAsync(batch.Length).ConfigureAwait(false);
        }
    }

    /// <summary>Waits until <paramref name="completed"/> more commands queue (the completed entry's writers are back) or <c>rejoinWait</c> passes.</summary>
    private async Task AwaitRejoinAsync(int completed)
    {
        Task joined;
        lock (gate)
        {
            if (queue.Count >= maxCommands)
                return;
            rejoinTarget = int.Min(maxCommands, queue.Count + completed);
            rejoined = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            joined = rejoined.Task;
        }

        await Task.WhenAny(joined, Task.Delay(rejoinWait)).ConfigureAwait(false);
        lock (gate)
            rejoined = null;
    }

    private QueuedWrite[] TakeBatch()
    {
        var batch = new List<QueuedWrite> { queue.Dequeue() };
        var bytes = batch[0].Body.Length;
        while (batch.Count < maxCommands && queue.TryPeek(out var next) && bytes + next.Body.Length <= maxBytes)
        {
            bytes += next.Body.Length;
            batch.Add(queue.Dequeue());
        }

        return batch.ToArray();
    }

    private async Task SendEntryAsync(QueuedWrite[] batch)
    {
        Interlocked.Increment(ref entries);
        Interlocked.Add(ref commands, batch.Length);
        try
        {
            var waiter = new ApplyWaiter(batch.Select(write => write.Id).ToArray());
            var rounds = Rounds;
            var sent = Stopwatch.GetTimestamp();
            await replicate(BatchCodec.Encode(batch.Select(write => write.Body).ToArray()), waiter).ConfigureAwait(false);
            // DotNext returns once this node applied the entry's index, so the apply has set the waiter; if the entry
            // applied there was another's (a new leader's), its context was not this waiter, and nothing will set it.
            waiter.Complete(new EntryOutcome(ApplyStatus.NoOp, []));
            var outcomes = await waiter.Task.ConfigureAwait(false);
            if (rounds is not null && outcomes.Length > 0 && outcomes[0].Status == ApplyStatus.Applied)
                RecordRound(rounds, batch, outcomes[0].Index, sent);
            for (var i = 0; i < batch.Length; i++)
                batch[i].TrySetResult(outcomes[i]);
        }
        catch (Exception failure)
        {
            foreach (var write in batch)
                write.TrySetException(failure);
        }
    }

    private static void RecordRound(RoundRecorder rounds, QueuedWrite[] batch, long index, long sent)
    {
        rounds.Record(RoundStage.ReplicateReturned, index);
        rounds.RecordAt(RoundStage.Sent, index, sent);
        foreach (var write in batch)
            rounds.RecordAt(RoundStage.Queued, index, write.QueuedAt);
    }

    private sealed class QueuedWrite(OperationId id, byte[] body) : TaskCompletionSource<ApplyOutcome>(TaskCreationOptions.RunContinuationsAsynchronously)
    {
        public OperationId Id { get; } = id;

        public byte[] Body { get; } = body;

        public long QueuedAt { get; } = Stopwatch.GetTimestamp();
    }
}
