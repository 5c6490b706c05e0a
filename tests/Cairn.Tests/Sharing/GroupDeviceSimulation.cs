using Cairn.Journal.Sharing;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A journal group on a modelled device, in simulated time (microseconds; no clock, no threads): environments commit
/// one at a time with a random pause between commits, the group sends every waiting commit in one write whenever fewer
/// writes than the limit are on the device, and the device settles each write as its model says. With a
/// <see cref="WriteGather"/>, the write after one that settled at a limit of one waits as the gather says for the
/// environments that write released. What the in-flight rule and the gather are judged by: commits per simulated second,
/// and how many commits each write carried.
/// </summary>
internal sealed class GroupDeviceSimulation
{
    /// <summary>What a device does with the writes sent to it.</summary>
    public abstract class Device
    {
        /// <summary>Sends a write at <paramref name="now"/>; <paramref name="settled"/> is called when it settles.</summary>
        public abstract void Send(GroupDeviceSimulation simulation, long now, Action<long> settled);
    }

    /// <summary>Every write takes the same time however many are on the device (a device that runs them in parallel).</summary>
    public sealed class ParallelDevice(long latency) : Device
    {
        public override void Send(GroupDeviceSimulation simulation, long now, Action<long> settled) =>
            simulation.At(now + latency, () => settled(now + latency));
    }

    /// <summary>
    /// One write at a time, first come first served, each taking <paramref name="service"/> (a disk capped in operations
    /// per second), shared with <paramref name="otherWriters"/> writers outside the group that always have a write
    /// waiting (the members' data-file flushes under the same cap).
    /// </summary>
    public sealed class QueueingDevice(long service, int otherWriters) : Device
    {
        private readonly Queue<Action<long>> _queue = new();
        private bool _busy;
        private bool _othersStarted;

        public override void Send(GroupDeviceSimulation simulation, long now, Action<long> settled)
        {
            if (!_othersStarted)
            {
                _othersStarted = true;
                for (int i = 0; i < otherWriters; i++)
                    Enqueue(simulation, now, Other(simulation));
            }
            Enqueue(simulation, now, settled);
        }

        private Action<long> Other(GroupDeviceSimulation simulation) => t => Enqueue(simulation, t, Other(simulation));

        private void Enqueue(GroupDeviceSimulation simulation, long now, Action<long> settled)
        {
            _queue.Enqueue(settled);
            if (!_busy)
                ServeNext(simulation, now);
        }

        private void ServeNext(GroupDeviceSimulation simulation, long now)
        {
            if (!_queue.TryDequeue(out var next))
            {
                _busy = false;
                return;
            }
            _busy = true;
            simulation.At(now + service, () =>
            {
                next(now + service);
                ServeNext(simulation, now + service);
            });
        }
    }

    /// <summary>
    /// An IOPS cap as Linux's blk-throttle applies it: time cut in slices of <paramref name="slice"/>, each letting
    /// <paramref name="budget"/> writes through at once to a device that runs them in parallel in
    /// <paramref name="latency"/>; a write beyond the slice's budget waits for the next slice. So the cap comes in bursts:
    /// a few tens of writes at the device's own speed, then a stall to the slice's end.
    /// </summary>
    public sealed class ThrottledDevice(long latency, long slice, int budget) : Device
    {
        private readonly Queue<Action<long>> _held = new();
        private long _slice = -1;
        private int _dispatched;
        private bool _timerSet;

        public override void Send(GroupDeviceSimulation simulation, long now, Action<long> settled)
        {
            _held.Enqueue(settled);
            Dispatch(simulation, now);
        }

        private void Dispatch(GroupDeviceSimulation simulation, long now)
        {
            long current = now / slice;
            if (current != _slice)
            {
                _slice = current;
                _dispatched = 0;
            }
            while (_dispatched < budget && _held.TryDequeue(out var next))
            {
                _dispatched++;
                long at = now + latency;
                simulation.At(at, () => next(at));
            }
            if (_held.Count > 0 && !_timerSet)
            {
                _timerSet = true;
                simulation.At((current + 1) * slice, () =>
                {
                    _timerSet = false;
                    Dispatch(simulation, (current + 1) * slice);
                });
            }
        }
    }

    private readonly PriorityQueue<Action, (long Time, long Sequence)> _events = new();
    private long _sequence;
    private readonly Random _random;
    private readonly Device _device;
    private readonly Func<int> _limit;
    private readonly Action<long, int, long, int> _observe;
    private readonly long _meanPause;
    private readonly List<int> _waiting = [];
    private int _onDevice;
    private readonly WriteGather? _gather;
    // The number of the write that last carried each environment's commit, and of the last write settled.
    private readonly long[] _carriedBy;
    private long _writeNumber;
    private long _lastSettled;
    private bool _gatherTimerSet;
    private bool _waited;

    /// <summary>
    /// <paramref name="limit"/> is read before each write is sent; <paramref name="observe"/> gets each settled write:
    /// settle time, writes on the device when it was sent (itself included), its device time and its commits.
    /// </summary>
    public GroupDeviceSimulation(Device device, int environments, long meanPause, Func<int> limit, Action<long, int, long, int> observe, int seed = 1,
        WriteGather? gather = null)
    {
        _gather = gather;
        _carriedBy = new long[environments];
        _device = device;
        _limit = limit;
        _observe = observe;
        _meanPause = meanPause;
        _random = new Random(seed);
        for (int i = 0; i < environments; i++)
            At(Pause(), Arrive(i));
    }

    public long Now { get; private set; }

    /// <summary>Commits made durable after <see cref="Measure"/> was called, and the writes that carried them.</summary>
    public long Commits { get; private set; }

    public long Writes { get; private set; }

    private long _measuredFrom;

    public double CommitsPerSecond => Commits * 1_000_000.0 / Math.Max(1, Now - _measuredFrom);

    public double CommitsPerWrite => (double)Commits / Math.Max(1, Writes);

    private void At(long time, Action action) => _events.Enqueue(action, (time, _sequence++));

    // Exponential pauses, so the environments do not commit in lockstep.
    private long Pause() => 1 + (long)(-_meanPause * Math.Log(1 - _random.NextDouble()));

    private Action Arrive(int environment) => () =>
    {
        _waiting.Add(environment);
        if (_gather is not null && _carriedBy[environment] != 0 && _carriedBy[environment] == _lastSettled)
            _gather.Returned();
        SendWhileAllowed();
    };

    private void SendWhileAllowed()
    {
        while (_waiting.Count > 0 && _onDevice < _limit())
        {
            if (_gather is not null)
            {
                long wait = _gather.WaitFor(Now, batchFull: false);
                if (wait > 0)
                {
                    _waited = true;
                    if (!_gatherTimerSet)
                    {
                        _gatherTimerSet = true;
                        At(Now + wait, () =>
                        {
                            _gatherTimerSet = false;
                            SendWhileAllowed();
                        });
                    }
                    return;
                }
                _gather.BatchTaken(_waited);
                _waited = false;
            }
            var carried = _waiting.ToArray();
            _waiting.Clear();
            long number = ++_writeNumber;
            foreach (int environment in carried)
                _carriedBy[environment] = number;
            int onDevice = ++_onDevice;
            long sent = Now;
            _device.Send(this, Now, settledAt =>
            {
                _onDevice--;
                Commits += carried.Length;
                Writes++;
                _observe(settledAt, onDevice, settledAt - sent, carried.Length);
                _lastSettled = number;
                _gather?.Settled(settledAt, settledAt - sent, carried.Length, gather: _limit() == 1);
                foreach (int environment in carried)
                    At(settledAt + Pause(), Arrive(environment));
                SendWhileAllowed();
            });
        }
    }

    /// <summary>Runs until <paramref name="until"/> (simulated microseconds).</summary>
    public void RunUntil(long until)
    {
        while (_events.TryPeek(out _, out var at) && at.Time <= until)
        {
            var action = _events.Dequeue();
            Now = at.Time;
            action();
        }
        Now = until;
    }

    /// <summary>Counts commits and writes from now on (after a warm-up).</summary>
    public void Measure()
    {
        _measuredFrom = Now;
        Commits = 0;
        Writes = 0;
    }
}
