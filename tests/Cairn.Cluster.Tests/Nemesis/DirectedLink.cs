namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// The bytes node <see cref="From"/> sends node <see cref="To"/>, on every connection between them whichever
/// dialled: requests on connections <see cref="From"/> opened, replies on those <see cref="To"/> opened.
/// </summary>
public sealed class DirectedLink
{
    // Guards behaviour and notDropping together, so a waiter never misses the change that releases it.
    private readonly Lock gate = new();
    private LinkBehaviour behaviour = LinkBehaviour.Pass;
    private TaskCompletionSource notDropping = CompletedSignal();
    private long bytesForwarded;
    private long bytesHeld;
    private int endsHeld;

    internal DirectedLink(int from, int to)
    {
        From = from;
        To = to;
    }

    public int From { get; }

    public int To { get; }

    public LinkBehaviour Behaviour
    {
        get
        {
            lock (gate)
                return behaviour;
        }
    }

    /// <summary>Bytes let through to the receiving side so far (delayed bytes count once their delay is over).</summary>
    public long BytesForwarded => Interlocked.Read(ref bytesForwarded);

    /// <summary>
    /// Bytes read from the sender while the link dropped, so far: each was held back until the link passed again (and
    /// then delivered in order) or its connection was cut.
    /// </summary>
    public long BytesHeld => Interlocked.Read(ref bytesHeld);

    /// <summary>Connections whose end of stream in this direction is held back now, because the link drops.</summary>
    public int EndsHeld => Volatile.Read(ref endsHeld);

    internal void Set(LinkBehaviour value)
    {
        lock (gate)
        {
            behaviour = value;
            if (value.Mode == LinkMode.Drop)
            {
                if (notDropping.Task.IsCompleted)
                    notDropping = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            }
            else
            {
                notDropping.TrySetResult();
            }
        }
    }

    /// <summary>
    /// Holds <paramref name="bytes"/> just read (or, when 0, the end of stream) until the link is not dropping:
    /// returns at once if it is not now. TCP never loses bytes from the middle of a live connection: a sender keeps
    /// what was not acknowledged and sends it again, so a dropping link delays a stream, it does not cut holes in it.
    /// </summary>
    internal async Task HoldWhileDroppingAsync(int bytes, CancellationToken cancellation)
    {
        Task released;
        lock (gate)
            released = notDropping.Task;
        if (released.IsCompleted)
            return;
        if (bytes == 0)
            Interlocked.Increment(ref endsHeld);
        else
            Interlocked.Add(ref bytesHeld, bytes);
        try
        {
            await released.WaitAsync(cancellation);
        }
        finally
        {
            if (bytes == 0)
                Interlocked.Decrement(ref endsHeld);
        }
    }

    internal void CountForwarded(int count) => Interlocked.Add(ref bytesForwarded, count);

    public override string ToString() => $"{From}->{To}: {Behaviour}";

    private static TaskCompletionSource CompletedSignal()
    {
        var signal = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        signal.SetResult();
        return signal;
    }
}
