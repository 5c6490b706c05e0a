namespace Cairn.Journal.Sharing;

/// <summary>
/// How many shared writes a journal group lets onto the device at once, learnt from the rate the group carries: one
/// more write in flight is kept when it raises the commits the group makes durable per second (the device runs writes
/// in parallel, so the extra write is throughput), and dropped when it does not (the device serialises them: on a disk
/// capped in operations per second two half writes cost what two full ones do, so fewer and fuller writes carry more).
/// </summary>
/// <remarks>
/// <para>
/// The rule, fed each settled write (<see cref="Observe"/>: when it was sent and settled, and how many commits it
/// carried): the limit is judged by trials, each two back-to-back windows of at least <see cref="Window"/> settled
/// writes and at least the minimum window's time, one at a lower level and one at the level above it, compared by
/// commits per second of wall time. The upper level wins when it carries at least <see cref="GainRatio"/> times the
/// lower's rate. An upward trial (the limit and one more) that the upper level wins moves the limit up and probes the
/// next level at once; one it loses leaves the limit where it was.
/// A downward trial (one fewer and the limit) that the lower level wins moves the limit down and probes the next lower
/// level at once, so a device that became capped is followed down in a few trials. After a trial that kept the limit,
/// <see cref="HoldWindows"/> windows pass before the next one, up and down in turn (a device is not asked at every
/// window, nor never again: load and devices change). It starts at one, so a capped disk never sees a burst of
/// half-empty writes before the policy has learnt anything, and lets its first window pass unjudged before an upward
/// trial: a process's first writes run with cold code and new journal files, and a trial whose lower level measured
/// them would be won by the upper level whatever the device.
/// </para>
/// <para>
/// Why a window spans time as well as writes: a cap applied as blk-throttle applies it comes in slices (100 ms): a burst
/// of the slice's budget at the device's own speed, then a stall to the slice's end. Within a burst the device runs
/// writes in parallel and more in flight wins; over whole slices the budget of writes is fixed and fewer, fuller writes
/// win. A window of a few tens of writes falls within one burst, so the rule must see several slices (production asks
/// for 300 ms). For the same reason the group's idle time is the gap between a write's settling and the next one's
/// sending: a stall while a write is on the device is the device's pace, not the callers'.
/// </para>
/// <para>
/// Why commits per second and not the latency per write, nor writes per second: blk-throttle and cloud volumes hide
/// their queue, and the group shares the device's budget with its members' other writes (data-file flushes, directory
/// syncs). There one more write in flight takes a larger share of a fixed budget: its latency grows less than a pure
/// queue's and the group's writes per second even rise, yet each write carries fewer commits and the group carries
/// fewer per second. The rate of commits is what the group is for; its two windows are measured back to back so that a
/// change of the machine's load between them is small beside a factor the device makes. Where the load does not keep
/// two writes busy, the upper level carries no more than the lower and the limit stays low, which costs nothing: the
/// limit is never reached then. Not thread-safe: the group calls it under its gate.
/// </para>
/// </remarks>
internal sealed class WritesInFlightPolicy
{
    /// <summary>Settled writes in each window a trial compares.</summary>
    public const int Window = 32;

    /// <summary>How much more the upper level of a trial must carry per second to be kept (a margin for noise).</summary>
    public const double GainRatio = 1.05;

    /// <summary>Windows the limit stays unjudged after a trial kept it.</summary>
    public const int HoldWindows = 8;

    private readonly bool _adapts;
    private readonly long _minWindowTicks;

    /// <summary>
    /// A trial: its two levels (<see cref="Lower"/> and the one above), its direction (upward: it starts at the lower
    /// level, the limit it was begun at), and the rate of its first window once measured.
    /// </summary>
    private sealed record Trial(int Lower, bool Upward, double? FirstRate = null)
    {
        public int Upper => Lower + 1;

        /// <summary>The level the first window measures: the limit the trial began at.</summary>
        public int First => Upward ? Lower : Upper;

        /// <summary>The level the second window measures.</summary>
        public int Second => Upward ? Upper : Lower;

        /// <summary>With the first window measured, the level the trial keeps given the second's rate.</summary>
        public int Kept(double secondRate)
        {
            double first = FirstRate ?? throw new InvalidOperationException("The trial's first window is not measured.");
            double lowerRate = Upward ? first : secondRate;
            double upperRate = Upward ? secondRate : first;
            return upperRate >= GainRatio * lowerRate ? Upper : Lower;
        }
    }

    // The trial under way, or null during a hold.
    private Trial? _trial;
    // The next trial after a hold goes down when this is set (turn about), if both directions are possible.
    private bool _nextDown;

    // The window being measured: writes settled after the limit last changed that still belong to the previous
    // limit (skipped), then the window's start time, writes and commits counted after it.
    private int _settling;
    private bool _started;
    private long _windowStart;
    private int _windowWrites;
    private long _windowCommits;
    private long _lastSettled;
    // Ticks per settled write in the last full window (0 before one): what tells an idle gap from the device's pace.
    private double _lastPace;
    // Windows left before the next trial (a hold).
    private int _holdWindows;

    // A gap between two settlements this many times the pace restarts the window: the group was idle (no commits
    // came), and a rate spanning the gap would measure the callers, not the device.
    private const double IdleGapFactor = 16;

    /// <summary>
    /// Learns the limit between 1 and <paramref name="maximum"/>, starting at 1; each window it judges spans at least
    /// <paramref name="minWindowTicks"/> of the clock <see cref="Observe"/> is given (besides <see cref="Window"/> writes).
    /// </summary>
    public WritesInFlightPolicy(int maximum, long minWindowTicks = 0)
        : this(maximum, adapts: true)
    {
        _minWindowTicks = Math.Max(0, minWindowTicks);
    }

    private WritesInFlightPolicy(int maximum, bool adapts)
    {
        Maximum = Math.Max(1, maximum);
        _adapts = adapts && Maximum > 1;
        Limit = adapts ? 1 : Maximum;
        if (_adapts)
        {
            _holdWindows = 1;
            OpenWindow(settle: 0);
        }
    }

    /// <summary>Always <paramref name="limit"/> writes at once, whatever the device does (tests of the writes' ordering).</summary>
    public static WritesInFlightPolicy Fixed(int limit) => new(limit, adapts: false);

    /// <summary>The configured upper bound (<c>StorageOptions.JournalGroupMaxInFlightWrites</c>).</summary>
    public int Maximum { get; }

    /// <summary>Writes allowed on the device at once now: 1 to <see cref="Maximum"/>.</summary>
    public int Limit { get; private set; }

    /// <summary>Trials judged so far, and how many of them moved the limit (the bench reports them).</summary>
    public (int Trials, int Moves) Judged { get; private set; }

    /// <summary>
    /// A write sent at <paramref name="sent"/> settled at <paramref name="now"/> (any monotonic clock's ticks), having
    /// carried <paramref name="commits"/> commits; failed writes are not reported.
    /// </summary>
    public void Observe(long sent, long now, int commits)
    {
        if (!_adapts)
            return;
        if (_settling > 0)
        {
            _settling--;
            return;
        }
        if (!_started || IsIdleGap(sent))
        {
            // The window opens at this settlement; it counts what settles after it.
            _started = true;
            _windowStart = now;
            _lastSettled = now;
            _windowWrites = 0;
            _windowCommits = 0;
            return;
        }
        _lastSettled = now;
        _windowWrites++;
        _windowCommits += Math.Max(0, commits);
        long elapsed = Math.Max(1, now - _windowStart);
        if (_windowWrites < Window || elapsed < _minWindowTicks)
            return;
        _lastPace = (double)elapsed / _windowWrites;
        WindowDone((double)_windowCommits / elapsed);
    }

    // The group was idle when the write was sent long after the last one settled (no commit came); a write that was
    // long on the device (a throttle's stall) is the device's time and counts.
    private bool IsIdleGap(long sent)
    {
        double pace = _windowWrites >= 4 ? (double)(_lastSettled - _windowStart) / _windowWrites : _lastPace;
        return pace > 0 && sent - _lastSettled > IdleGapFactor * pace;
    }

    private void WindowDone(double rate)
    {
        if (_trial is null)
        {
            if (--_holdWindows > 0)
            {
                OpenWindow(settle: 0);
                return;
            }
            bool down = Limit > 1 && (_nextDown || Limit == Maximum);
            BeginTrial(upward: !down);
            return;
        }
        var trial = _trial;
        if (trial.FirstRate is null)
        {
            // The first window of the trial (the limit it started at) is done: now the other level.
            _trial = trial with { FirstRate = rate };
            SetLimit(trial.Second);
            return;
        }
        int before = trial.First;
        int after = trial.Kept(rate);
        Judged = (Judged.Trials + 1, Judged.Moves + (after != before ? 1 : 0));
        _trial = null;
        if (after != before && trial.Upward && after < Maximum)
        {
            SetLimit(after);
            BeginTrial(upward: true);
            return;
        }
        if (after != before && !trial.Upward && after > 1)
        {
            SetLimit(after);
            BeginTrial(upward: false);
            return;
        }
        // Kept (or at a bound): hold, then try the other direction.
        _nextDown = trial.Upward;
        SetLimit(after);
        _holdWindows = HoldWindows;
    }

    /// <summary>A trial from the current limit: it first measures the limit itself, then the level above or below.</summary>
    private void BeginTrial(bool upward)
    {
        _trial = new Trial(Lower: upward ? Limit : Limit - 1, Upward: upward);
        OpenWindow(settle: 0);
    }

    private void SetLimit(int limit)
    {
        // Writes sent under the old limit settle first: they say nothing of the new one.
        int settle = limit == Limit ? 0 : Math.Max(Limit, limit);
        Limit = limit;
        OpenWindow(settle);
    }

    private void OpenWindow(int settle)
    {
        _settling = settle;
        _started = false;
        _windowWrites = 0;
        _windowCommits = 0;
    }
}
