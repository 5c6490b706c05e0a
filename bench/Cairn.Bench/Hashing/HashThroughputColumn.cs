using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cairn.Bench.Columns;

namespace Cairn.Bench.Hashing;

/// <summary>Bytes hashed per second, in GB/s (10^9 bytes): <see cref="HashInputs.BytesHashed"/> over Mean.</summary>
public sealed class HashThroughputColumn : MeanColumn
{
    public override string Id => "HashThroughput";
    public override string ColumnName => "GB/s";
    public override string Legend => "Bytes hashed per operation over Mean, in 10^9 bytes per second";

    protected override string? Format(double meanNanoseconds, BenchmarkCase benchmarkCase, SummaryStyle style)
        => benchmarkCase.Parameters[nameof(HashBenchmarks.Input)] is HashInput input
            ? (HashInputs.BytesHashed(input) / meanNanoseconds).ToString("0.00", style.CultureInfo)
            : null;
}
