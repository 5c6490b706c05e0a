using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cairn.Bench.Columns;

namespace Cairn.Bench.Durability.Columns;

/// <summary>
/// A row's throughput over a baseline's in the same run: the baseline's mean divided by this row's,
/// so 2.00 reads "twice the baseline's commits per second", the form the durability and merger
/// issues' targets take (≥ 0.9× the raw rate, ≥ 2× LMDB, ≥ 2× RocksDB at 16 callers, ≥ 10× the
/// single-caller rate). The inverse of the key-value suite's Ratio/lmdb, which is time over time.
/// The baseline is the row with the same method, job and other parameters whose
/// <c>parameterName</c> is <c>baselineValue</c> (<see cref="ParameterBaseline"/>): a store
/// (<c>Store</c> = lmdb) or a caller count (<c>Callers</c> = 1, the same store alone).
/// </summary>
public sealed class ThroughputRatioColumn : IColumn
{
    /// <summary>The store parameter's name in both durable-commit benchmarks.</summary>
    public const string StoreParameter = nameof(DurableCommitBenchmarks.Store);

    private readonly string _parameterName;
    private readonly object _baselineValue;
    private readonly string _baselineDescription;

    /// <summary>Against another store in the same run, with the same other parameters: <c>Rate/store</c>.</summary>
    public ThroughputRatioColumn(string baselineStore)
        : this(StoreParameter, baselineStore, $"Rate/{baselineStore}", $"{baselineStore}'s", baselineStore switch
        {
            DurableStores.Raw => 1,
            DurableStores.Lmdb => 2,
            DurableStores.Sqlite => 3,
            DurableStores.RocksDb => 4,
            _ => 5,
        })
    {
    }

    /// <param name="parameterName">The parameter whose value picks the baseline row.</param>
    /// <param name="baselineValue">That parameter's value on the baseline row (compared with <see cref="object.Equals(object?, object?)"/>).</param>
    /// <param name="columnName">The column's header.</param>
    /// <param name="baselineDescription">Names the baseline in the legend ("lmdb's", "the same store's at 1 caller").</param>
    /// <param name="priority">Order among the custom columns.</param>
    public ThroughputRatioColumn(string parameterName, object baselineValue, string columnName, string baselineDescription, int priority)
    {
        _parameterName = parameterName;
        _baselineValue = baselineValue;
        _baselineDescription = baselineDescription;
        ColumnName = columnName;
        PriorityInCategory = priority;
    }

    public string Id => $"{nameof(ThroughputRatioColumn)}.{_parameterName}.{_baselineValue}";
    public string ColumnName { get; }
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory { get; }
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => $"Commits per second over {_baselineDescription} in the same run (baseline mean / this mean; above 1 is faster)";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        ParameterBaseline.TryGetMeans(summary, benchmarkCase, _parameterName, _baselineValue, out var mean, out var baselineMean)
            ? (baselineMean / mean).ToString("0.00", style.CultureInfo)
            : "?";

    public override string ToString() => ColumnName;
}
