using System.Diagnostics.Metrics;
using Cairn.Diagnostics;
using Cairn.Tests.Support;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;

namespace Cairn.Tests.Diagnostics;

/// <summary>
/// The environment's instruments (docs/metrics.md) as a listener sees them. Each test opens its
/// environments with a meter factory of its own, so tests running in parallel never see each other's
/// measurements; one test covers the process-wide meter, told apart by the environment's name.
/// </summary>
public sealed class MetricsTests
{
    private static readonly byte[] Value = new byte[100];

    [Fact]
    public void Durable_commits_are_counted_and_timed_with_the_environments_name()
    {
        using var dir = new TestDirectory("metrics-durable");
        using var meters = new TestMeterFactory();
        using var env = StorageEnvironment.Open(Options(dir.Path, meters, "orders"));
        var meter = meters.CairnMeter(env);
        using var commits = new MetricCollector<long>(meter, CairnMetrics.Commits);
        using var durations = new MetricCollector<double>(meter, CairnMetrics.CommitDuration);
        using var writes = new MetricCollector<long>(meter, CairnMetrics.JournalWriteSize);

        for (int i = 0; i < 5; i++)
            Put(env, i);

        var counted = commits.GetMeasurementSnapshot();
        Assert.Equal(5, counted.Count);
        Assert.All(counted, m =>
        {
            Assert.Equal(1, m.Value);
            Assert.Equal("orders", m.Tags[CairnMetrics.EnvironmentTag]);
            Assert.Equal("durable", m.Tags[CairnMetrics.CommitModeTag]);
        });
        Assert.Equal(5, durations.GetMeasurementSnapshot().Count);
        Assert.All(durations.GetMeasurementSnapshot(), m => Assert.True(m.Value > 0));
        // One O_DIRECT journal write per durable commit, each a whole number of 4 KiB blocks, never shared.
        var written = writes.GetMeasurementSnapshot();
        Assert.Equal(5, written.Count);
        Assert.All(written, m =>
        {
            Assert.True(m.Value > 0 && m.Value % 4096 == 0, $"journal write of {m.Value} bytes");
            Assert.Equal(false, m.Tags[CairnMetrics.SharedWriteTag]);
        });
    }

    [Fact]
    public async Task Merged_transactions_count_their_operations_and_each_operations_queue_wait()
    {
        using var dir = new TestDirectory("metrics-merged");
        using var meters = new TestMeterFactory();
        await using var env = StorageEnvironment.Open(Options(dir.Path, meters, "merged"));
        var meter = meters.CairnMeter(env);
        using var commits = new MetricCollector<long>(meter, CairnMetrics.Commits);
        using var batches = new MetricCollector<int>(meter, CairnMetrics.MergerBatchSize);
        using var waits = new MetricCollector<double>(meter, CairnMetrics.MergerQueueWait);
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t"));

        const int Operations = 200;
        await Task.WhenAll(Enumerable.Range(0, Operations).Select(i =>
            env.WriteAsync(i, static (tx, k) => tx.OpenTree("t").Put(Bytes.Key(k), Value)).AsTask()));

        var merged = commits.GetMeasurementSnapshot();
        Assert.All(merged, m => Assert.Equal("merged", m.Tags[CairnMetrics.CommitModeTag]));
        Assert.Equal(Operations + 1, batches.GetMeasurementSnapshot().Sum(m => m.Value));
        Assert.Equal(merged.Count, batches.GetMeasurementSnapshot().Count);
        Assert.Equal(Operations + 1, waits.GetMeasurementSnapshot().Count);
        Assert.All(waits.GetMeasurementSnapshot(), m => Assert.True(m.Value >= 0));
    }

    [Fact]
    public void A_checkpoint_records_its_flush_and_sync()
    {
        using var dir = new TestDirectory("metrics-flush");
        using var meters = new TestMeterFactory();
        using var env = StorageEnvironment.Open(Options(dir.Path, meters, "flushed"));
        var meter = meters.CairnMeter(env);
        using var flushes = new MetricCollector<long>(meter, CairnMetrics.FlushSize);
        using var flushTimes = new MetricCollector<double>(meter, CairnMetrics.FlushDuration);
        using var syncs = new MetricCollector<double>(meter, CairnMetrics.SyncDuration);
        for (int i = 0; i < 10; i++)
            Put(env, i);

        env.Checkpoint();

        Assert.NotEmpty(flushes.GetMeasurementSnapshot());
        Assert.True(flushes.GetMeasurementSnapshot().Sum(m => m.Value) >= 8192, "the tree's page at least");
        Assert.Equal(flushes.GetMeasurementSnapshot().Count, flushTimes.GetMeasurementSnapshot().Count);
        Assert.NotEmpty(syncs.GetMeasurementSnapshot());
        Assert.All(syncs.GetMeasurementSnapshot(), m => Assert.Equal("flushed", m.Tags[CairnMetrics.EnvironmentTag]));
    }

    [Fact]
    public void Opening_after_a_crash_records_the_transactions_it_replayed()
    {
        using var dir = new TestDirectory("metrics-recovery");
        using var meters = new TestMeterFactory();
        var options = Options(dir.Path, meters, "recovered");
        var env = StorageEnvironment.Open(options);
        for (int i = 0; i < 7; i++)
            Put(env, i);
        env.ForTestingPurposesOnly().SimulateProcessCrash();
        var meter = meters.CairnMeter(env);
        using var replayed = new MetricCollector<long>(meter, CairnMetrics.RecoveredTransactions);
        using var opened = new MetricCollector<double>(meter, CairnMetrics.RecoveryDuration);

        using (StorageEnvironment.Open(options))
        {
        }

        Assert.Equal(7, Assert.Single(replayed.GetMeasurementSnapshot()).Value);
        Assert.True(Assert.Single(opened.GetMeasurementSnapshot()).Value > 0);
    }

    [Fact]
    public void Gauges_report_scratch_journal_bytes_and_the_oldest_readers_age_and_stop_at_close()
    {
        using var dir = new TestDirectory("metrics-gauges");
        using var meters = new TestMeterFactory();
        var env = StorageEnvironment.Open(Options(dir.Path, meters, "gauged"));
        var meter = meters.CairnMeter(env);
        using var scratch = new MetricCollector<long>(meter, CairnMetrics.ScratchUsage);
        using var journal = new MetricCollector<long>(meter, CairnMetrics.JournalDiskUsage);
        using var readerAge = new MetricCollector<double>(meter, CairnMetrics.OldestReaderAge);
        for (int i = 0; i < 3; i++)
            Put(env, i);

        scratch.RecordObservableInstruments();
        journal.RecordObservableInstruments();
        readerAge.RecordObservableInstruments();
        // Not flushed (the flush delay is an hour): the committed pages are in scratch memory, the journal on disk.
        Assert.True(scratch.LastMeasurement!.Value > 0);
        Assert.True(journal.LastMeasurement!.Value > 0);
        Assert.Equal(0, readerAge.LastMeasurement!.Value);

        using (env.BeginRead())
        {
            Thread.Sleep(100); // a lower bound on the reader's age, whatever the machine's load
            readerAge.RecordObservableInstruments();
            Assert.True(readerAge.LastMeasurement!.Value >= 0.08, $"oldest reader {readerAge.LastMeasurement.Value} s");
        }
        readerAge.RecordObservableInstruments();
        Assert.Equal(0, readerAge.LastMeasurement!.Value);

        env.Dispose();
        scratch.Clear();
        scratch.RecordObservableInstruments();
        Assert.Empty(scratch.GetMeasurementSnapshot());
    }

    [Fact]
    public async Task The_queue_depth_gauge_counts_operations_the_merger_has_not_taken()
    {
        using var dir = new TestDirectory("metrics-queue");
        using var meters = new TestMeterFactory();
        await using var env = StorageEnvironment.Open(Options(dir.Path, meters, "queued"));
        using var depth = new MetricCollector<long>(meters.CairnMeter(env), CairnMetrics.MergerQueueDepth);
        using var running = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();

        // The first operation holds the merger's thread, so the next three stay queued.
        var holder = env.WriteAsync((running, release), static (_, s) => { s.running.Set(); s.release.Wait(); }).AsTask();
        Assert.True(running.Wait(TimeSpan.FromMinutes(1)));
        var queued = Enumerable.Range(0, 3).Select(_ => env.WriteAsync(0, static (_, _) => { }).AsTask()).ToArray();
        depth.RecordObservableInstruments();
        Assert.Equal(3, depth.LastMeasurement!.Value);

        release.Set();
        await Task.WhenAll([holder, .. queued]).WaitAsync(TimeSpan.FromMinutes(1));
        depth.RecordObservableInstruments();
        Assert.Equal(0, depth.LastMeasurement!.Value);
    }

    [Fact]
    public void Environments_sharing_a_factory_share_one_set_of_instruments()
    {
        using var dir = new TestDirectory("metrics-shared-meter");
        using var meters = new TestMeterFactory();
        using var first = StorageEnvironment.Open(Options(Path.Combine(dir.Path, "a"), meters, "a"));
        using var second = StorageEnvironment.Open(Options(Path.Combine(dir.Path, "b"), meters, "b"));
        var published = new List<string>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, _) =>
        {
            if (meters.Created.Contains(instrument.Meter))
                published.Add(instrument.Name);
        };
        listener.Start();

        Assert.Single(meters.Created);
        Assert.Equal(published.Distinct().Count(), published.Count);
        Assert.Equal(15, published.Count);
        using var scratch = new MetricCollector<long>(meters.Created[0], CairnMetrics.ScratchUsage);
        scratch.RecordObservableInstruments();
        Assert.Equal(["a", "b"], scratch.GetMeasurementSnapshot().Select(m => (string)m.Tags[CairnMetrics.EnvironmentTag]!).Order());
    }

    [Fact]
    public void Without_a_factory_the_process_wide_meter_reports_the_environment_under_its_name()
    {
        using var dir = new TestDirectory("metrics-process");
        string name = $"process-{Guid.NewGuid():N}";
        using var commits = new MetricCollector<long>(null, CairnMetrics.MeterName, CairnMetrics.Commits);
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { Name = name });

        Put(env, 1);

        // Other tests' environments report to the same meter at the same time: count only this one's.
        Assert.Single(commits.GetMeasurementSnapshot(), m => Equals(m.Tags[CairnMetrics.EnvironmentTag], name));
    }

    [Fact]
    public void The_default_name_is_the_full_directory_path()
    {
        using var dir = new TestDirectory("metrics-default-name");
        using var meters = new TestMeterFactory();
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { MeterFactory = meters });
        using var commits = new MetricCollector<long>(meters.CairnMeter(env), CairnMetrics.Commits);

        Put(env, 1);

        Assert.Equal(Path.GetFullPath(dir.Path), Assert.Single(commits.GetMeasurementSnapshot()).Tags[CairnMetrics.EnvironmentTag]);
    }

    [Fact]
    public void Recording_allocates_nothing_while_a_listener_takes_every_measurement() =>
        Assert.Equal(0, IsolatedAllocation.Measure(RecordingProbe));

    internal static long RecordingProbe()
    {
        using var meters = new TestMeterFactory();
        var instruments = CairnInstruments.For(meters);
        using var metrics = new EnvironmentMetrics(instruments, "probe", new NoGauges());
        long sum = 0;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter, instruments.Meter))
                l.EnableMeasurementEvents(instrument);
        };
        listener.SetMeasurementEventCallback<long>((_, value, _, _) => sum += value);
        listener.SetMeasurementEventCallback<int>((_, value, _, _) => sum += value);
        listener.SetMeasurementEventCallback<double>((_, _, _, _) => sum++);
        listener.Start();
        long started = System.Diagnostics.Stopwatch.GetTimestamp();
        long allocated = SteadyStateAllocation.Measure(() =>
        {
            for (int i = 0; i < 1000; i++)
            {
                metrics.RecordDurableCommit(started);
                metrics.RecordMergedTransaction(16);
                metrics.RecordQueueWait(1000);
                metrics.RecordIo(IoOperationKind.JournalWrite, 1000, 4096, failed: false, environmentCount: 1);
                metrics.RecordIo(IoOperationKind.JournalWrite, 1000, 8192, failed: false, environmentCount: 3);
                metrics.RecordIo(IoOperationKind.DataFlush, 1000, 8192, failed: i % 2 == 0, environmentCount: 1);
                metrics.RecordIo(IoOperationKind.DataSync, 1000, 0, failed: false, environmentCount: 1);
            }
        });
        Assert.True(sum > 0, "the listener saw nothing");
        return allocated;
    }

    private sealed class NoGauges : IEnvironmentGaugeSource
    {
        public long ScratchBytesInUse => 0;
        public long MergerQueueDepth => 0;
        public long JournalBytesOnDisk => 0;
        public double OldestReaderAgeSeconds => 0;
    }

    private static StorageOptions Options(string path, IMeterFactory meters, string name) =>
        new(path) { MeterFactory = meters, Name = name, MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1) };

    private static void Put(StorageEnvironment env, int key)
    {
        using var tx = env.BeginWrite();
        var tree = tx.TryOpenTree("t", out var existing) ? existing : tx.CreateTree("t");
        tree.Put(Bytes.Key(key), Value);
        tx.Commit();
    }

    /// <summary>An <see cref="IMeterFactory"/> of the test's own, as a host's container would give (scoped meters it disposes).</summary>
    private sealed class TestMeterFactory : IMeterFactory
    {
        public List<Meter> Created { get; } = [];

        public Meter Create(MeterOptions options)
        {
            var meter = new Meter(options.Name, options.Version, options.Tags, scope: this);
            lock (Created)
                Created.Add(meter);
            return meter;
        }

        public Meter CairnMeter(StorageEnvironment _)
        {
            lock (Created)
                return Assert.Single(Created, m => m.Name == CairnMetrics.MeterName);
        }

        public void Dispose()
        {
            foreach (var meter in Created)
                meter.Dispose();
        }
    }
}
