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
    private long bytesDropped;
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

    /// <summary>Bytes read from the sender and thrown away so far.</summary>
    public long BytesDropped => Interlocked.Read(ref bytesDropped);

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

    /// <summary>Holds an end of stream until the link is not dropping (returns at once if it is not now).</summary>
    internal async Task HoldEndWhileDroppingAsync(CancellationToken cancellation)
    {
        Task released;
        lock (gate)
            released = notDropping.Task;
        if (released.IsCompleted)
            return;
        Interlocked.Increment(ref endsHeld);
        try
        {
            await released.WaitAsync(cancellation);
        }
        finally
        {
            Interlocked.Decrement(ref endsHeld);
        }
    }

    internal void CountForwarded(int count) => Interlocked.Add(ref bytesForwarded, count);

    internal void CountDropped(int count) => Interlocked.Add(ref bytesDropped, count);

    public override string ToString() => $"{From}->{To}: {Behaviour}";

    private static TaskCompletionSource CompletedSignal()
    {
        var signal = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        signal.SetResult();
        return signal;
    }
}
