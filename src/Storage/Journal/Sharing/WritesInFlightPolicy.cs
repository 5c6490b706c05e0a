namespace Cairn.Journal.Sharing;

/// <summary>
/// How many shared writes a journal group lets onto the device at once, learnt from the device: more while a write
/// takes about as long with one more beside it (the device runs them in parallel, so each extra write is throughput),
/// fewer when writes take longer the more there are (they queue: on a disk capped in operations per second, two half
/// writes cost what two full ones do, so fewer and fuller writes carry more commits).
/// </summary>
/// <remarks>
/// The rule, fed each settled write's device time and how many of the group's writes were on the device when it
/// started (<see cref="Observe"/>): a smoothed latency is kept for each number in flight. After every
/// <see cref="Window"/> writes that ran at the limit, the limit is judged against the latency one fewer in flight
/// showed: within <see cref="FlatRatio"/> of it, the limit grows by one (up to the configured maximum); grown in
/// proportion to the writes in flight (at least <see cref="QueueingRatio"/> of limit / (limit - 1): the extra write
/// only queued, so it gained nothing and made each write wait), the limit shrinks by one and stays there for
/// <see cref="HoldWindows"/> windows before it probes upward again (a device that queues is not asked again at every
/// window, nor never again: load and devices change); in between (some parallelism, some queueing: still more
/// writes per second) it stays. A limit of one with nothing below to compare probes two once its window is full. It starts at one, so a capped disk never
/// sees a burst of half-empty writes before the policy has learnt anything. Not thread-safe: the group calls it
/// under its gate.
/// </remarks>
internal sealed class WritesInFlightPolicy
{
    /// <summary>Writes at the limit between two judgements.</summary>
    public const int Window = 16;

    /// <summary>How much slower a write may be with one more in flight and still count as running in parallel.</summary>
    public const double FlatRatio = 1.25;

    /// <summary>
    /// Of the latency a pure queue would show with one more write in flight (limit / (limit - 1) times one fewer's), the
    /// share from which the writes count as queueing.
    /// </summary>
    public const double QueueingRatio = 0.9;

    /// <summary>Windows the limit stays lowered after writes were found to queue.</summary>
    public const int HoldWindows = 8;

    // Smoothing of each level's latency: an eighth of each new write.
    private const double Weight = 1.0 / 8;

    // Smoothed device time per write (Stopwatch ticks) with [n] writes in flight at its start; 0 until one was seen.
    private readonly double[] _latency;
    private int _atLimit;
    private int _hold;

    private readonly bool _adapts;

    /// <summary>Learns the limit between 1 and <paramref name="maximum"/>, starting at 1.</summary>
    public WritesInFlightPolicy(int maximum)
        : this(maximum, adapts: true)
    {
    }

    private WritesInFlightPolicy(int maximum, bool adapts)
    {
        Maximum = Math.Max(1, maximum);
        _latency = new double[Maximum + 1];
        _adapts = adapts;
        Limit = adapts ? 1 : Maximum;
    }

    /// <summary>Always <paramref name="limit"/> writes at once, whatever the device does (tests of the writes' ordering).</summary>
    public static WritesInFlightPolicy Fixed(int limit) => new(limit, adapts: false);

    /// <summary>The configured upper bound (<c>StorageOptions.JournalGroupMaxInFlightWrites</c>).</summary>
    public int Maximum { get; }

    /// <summary>Writes allowed on the device at once now: 1 to <see cref="Maximum"/>.</summary>
    public int Limit { get; private set; }

    /// <summary>A settled write took <paramref name="latencyTicks"/> on the device, started with <paramref name="inFlight"/> of the group's writes there (itself included).</summary>
    public void Observe(int inFlight, long latencyTicks)
    {
        if (!_adapts || inFlight < 1 || latencyTicks < 0)
            return;
        inFlight = Math.Min(inFlight, Maximum);
        ref double latency = ref _latency[inFlight];
        latency = latency == 0 ? latencyTicks : latency + Weight * (latencyTicks - latency);
        if (inFlight != Limit || ++_atLimit < Window)
            return;
        _atLimit = 0;
        Judge();
    }

    private void Judge()
    {
        if (_hold > 0)
        {
            _hold--;
            return;
        }
        double below = Limit > 1 ? _latency[Limit - 1] : 0;
        if (below == 0 || _latency[Limit] <= FlatRatio * below)
        {
            if (Limit < Maximum)
                Limit++;
            return;
        }
        if (_latency[Limit] >= QueueingRatio * Limit / (Limit - 1) * below)
        {
            Limit--;
            _hold = HoldWindows;
        }
    }
}
