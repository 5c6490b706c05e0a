using System.Collections.Immutable;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Cairn.Paging;

namespace Cairn.Bench;

/// <summary>
/// The reader's hot path: looking a page up in the published page table, against the
/// Dictionary&lt;long, PageVersion&gt; it replaces (the baseline of each category, so the ratios read
/// "times the cost of a dictionary lookup"). Page numbers are scattered over a range eight times the
/// entry count, like the pages one stretch of commits modifies; probes go in random order so
/// neither structure gets a sequential pattern for free. Hit and Miss let lookups overlap
/// (throughput); HitChained makes each depend on the last (latency, as on a tree walk).
/// <para>
/// The Commit category is the writer's side: derive the next table with 300 pages set (half of
/// them already present) from one of this size, against the BCL's persistent map doing the same.
/// </para>
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)]
[CategoriesColumn]
public class PageTableBenchmarks
{
    private const int ProbesPerInvoke = 1024;
    private const int PagesPerCommit = 300;

    private PageTable _table = null!;
    private Dictionary<long, PageVersion> _dictionary = null!;
    private long[] _present = null!;
    private long[] _absent = null!;
    private ImmutableDictionary<long, PageVersion> _immutableDictionary = null!;
    private long[] _committed = null!;

    [Params(100, 100_000)]
    public int Entries { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        var random = new Random(42);
        var pageNumbers = new HashSet<long>();
        while (pageNumbers.Count < Entries)
            pageNumbers.Add(random.NextInt64(Entries * 8L));

        var builder = PageTable.Empty.ToBuilder();
        _dictionary = new Dictionary<long, PageVersion>();
        foreach (long pageNumber in pageNumbers)
        {
            var version = new PageVersion((nint)(pageNumber << 13), pageNumber, 1);
            builder.Set(pageNumber, version);
            _dictionary[pageNumber] = version;
        }
        _table = builder.ToImmutable();

        long[] all = [.. pageNumbers];
        _present = [.. Enumerable.Range(0, ProbesPerInvoke).Select(_ => all[random.Next(all.Length)])];
        _immutableDictionary = _dictionary.ToImmutableDictionary();
        _committed = [.. Enumerable.Range(0, PagesPerCommit).Select(i => i % 2 == 0 ? all[random.Next(all.Length)] : random.NextInt64(Entries * 8L))];

        _absent = new long[ProbesPerInvoke];
        for (int i = 0; i < _absent.Length; i++)
        {
            long candidate;
            do candidate = random.NextInt64(Entries * 8L);
            while (pageNumbers.Contains(candidate));
            _absent[i] = candidate;
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = ProbesPerInvoke), BenchmarkCategory("Hit")]
    public long DictionaryHit() => Probe(_dictionary, _present);

    [Benchmark(OperationsPerInvoke = ProbesPerInvoke), BenchmarkCategory("Hit")]
    public long PageTableHit() => Probe(_table, _present);

    [Benchmark(Baseline = true, OperationsPerInvoke = ProbesPerInvoke), BenchmarkCategory("Miss")]
    public long DictionaryMiss() => Probe(_dictionary, _absent);

    [Benchmark(OperationsPerInvoke = ProbesPerInvoke), BenchmarkCategory("Miss")]
    public long PageTableMiss() => Probe(_table, _absent);

    /// <summary>Each probe's page number depends on the previous result, as on a tree walk: latency, not throughput.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = ProbesPerInvoke), BenchmarkCategory("HitChained")]
    public long DictionaryHitChained()
    {
        long previous = 0;
        for (int i = 0; i < ProbesPerInvoke; i++)
        {
            _dictionary.TryGetValue(_present[(previous + i) & (ProbesPerInvoke - 1)], out var version);
            previous = version.TransactionId;
        }
        return previous;
    }

    [Benchmark(OperationsPerInvoke = ProbesPerInvoke), BenchmarkCategory("HitChained")]
    public long PageTableHitChained()
    {
        long previous = 0;
        for (int i = 0; i < ProbesPerInvoke; i++)
        {
            _table.TryGet(_present[(previous + i) & (ProbesPerInvoke - 1)], out var version);
            previous = version.TransactionId;
        }
        return previous;
    }

    [Benchmark(Baseline = true), BenchmarkCategory("Commit")]
    public int ImmutableDictionaryCommit()
    {
        var builder = _immutableDictionary.ToBuilder();
        foreach (long pageNumber in _committed)
            builder[pageNumber] = new PageVersion((nint)(pageNumber << 13), 1_000_000, 1);
        return builder.ToImmutable().Count;
    }

    [Benchmark, BenchmarkCategory("Commit")]
    public int PageTableCommit()
    {
        var builder = _table.ToBuilder();
        foreach (long pageNumber in _committed)
            builder.Set(pageNumber, new PageVersion((nint)(pageNumber << 13), 1_000_000, 1));
        return builder.ToImmutable().Count;
    }

    private static long Probe(PageTable table, long[] pageNumbers)
    {
        long sum = 0;
        foreach (long pageNumber in pageNumbers)
        {
            if (table.TryGet(pageNumber, out var version))
                sum += version.TransactionId;
        }
        return sum;
    }

    private static long Probe(Dictionary<long, PageVersion> dictionary, long[] pageNumbers)
    {
        long sum = 0;
        foreach (long pageNumber in pageNumbers)
        {
            if (dictionary.TryGetValue(pageNumber, out var version))
                sum += version.TransactionId;
        }
        return sum;
    }
}
