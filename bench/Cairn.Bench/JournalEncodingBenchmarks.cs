using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cairn.Bench.Journal;
using Cairn.Journal;

namespace Cairn.Bench;

/// <summary>
/// Building the journal entry of one real transaction of 100 random puts (16-byte keys, 100-byte
/// values, into a tree of 100,000 keys; <see cref="JournalWorkload"/>): diff-encoding its ~100
/// modified pages, hashing, padding — without compression (the default) and with LZ4 always
/// tried. The Entry/pages column is the entry's size over the modified pages' size (the durability
/// issue's target is at most 0.3). One operation is one whole entry.
/// </summary>
[MemoryDiagnoser]
[Config(typeof(JournalEncodingConfig))]
[SimpleJob(launchCount: 1, warmupCount: 5, iterationCount: 15)]
public unsafe class JournalEncodingBenchmarks
{
    private JournalWorkload _workload = null!;
    private JournalBuffer _buffer = null!;
    private JournalEntryWriter _plain = null!, _lz4 = null!;

    [Params(JournalWorkloadKind.Puts100Random, JournalWorkloadKind.Puts100Pattern)]
    public JournalWorkloadKind Workload { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _workload = JournalWorkload.Capture(Workload);
        _buffer = new JournalBuffer();
        _plain = Writer(nameof(Uncompressed));
        _lz4 = Writer(nameof(Lz4));
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _workload.Dispose();
        _buffer.Dispose();
        _plain.Dispose();
        _lz4.Dispose();
    }

    [Benchmark(Baseline = true, Description = "encode, no compression")]
    public long Uncompressed() => _workload.Encode(_plain, _buffer);

    [Benchmark(Description = "encode + LZ4")]
    public long Lz4() => _workload.Encode(_lz4, _buffer);

    /// <summary>The writer each benchmark method uses (also for the size column, in the host process).</summary>
    internal static JournalEntryWriter Writer(string method) => new(method switch
    {
        nameof(Uncompressed) => new JournalWriterOptions { CompressionThreshold = JournalWriterOptions.CompressionDisabled },
        nameof(Lz4) => new JournalWriterOptions { CompressionThreshold = 0 },
        _ => throw new ArgumentOutOfRangeException(nameof(method), method, null),
    });
}

public sealed class JournalEncodingConfig : ManualConfig
{
    public JournalEncodingConfig() => AddColumn(new JournalEntrySizeColumn(ratio: false), new JournalEntrySizeColumn(ratio: true));
}

/// <summary>Entry bytes (or entry bytes over modified page bytes) for a row, computed in the host from the same deterministic workload.</summary>
public sealed class JournalEntrySizeColumn(bool ratio) : IColumn
{
    public string Id => ratio ? "JournalEntryRatio" : "JournalEntryBytes";
    public string ColumnName => ratio ? "Entry/pages" : "Entry bytes";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => ratio ? 1 : 0;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => ratio ? "Entry size over the modified pages' size" : "Journal entry size, 4 KiB aligned";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        if (benchmarkCase.Parameters[nameof(JournalEncodingBenchmarks.Workload)] is not JournalWorkloadKind kind)
            return "?";
        var workload = JournalWorkload.Shared(kind);
        using var writer = JournalEncodingBenchmarks.Writer(benchmarkCase.Descriptor.WorkloadMethod.Name);
        using var buffer = new JournalBuffer();
        long size = workload.Encode(writer, buffer);
        return ratio
            ? ((double)size / workload.PageBytes).ToString("0.000", style.CultureInfo)
            : size.ToString("N0", style.CultureInfo);
    }

    public override string ToString() => ColumnName;
}
