namespace Cairn.Bench.KeyValue;

/// <summary>
/// One engine as the key-value benchmarks drive it. Implementations do what a fast, ordinary user
/// of that engine would do, nothing the other engines could not also do; docs/benchmarks.md holds
/// each one's settings and why.
/// </summary>
/// <remarks>
/// Lifecycle: construct (through <see cref="BenchStores"/>), <see cref="IFillStore.Open"/> once, use, dispose.
/// Reads go through per-thread <see cref="IBenchReader"/>s because a fast reader keeps per-thread
/// state (LMDB's reusable read transaction), and the multi-threaded benchmarks need one each.
/// </remarks>
public interface IBenchStore : IFillStore
{
    /// <summary>A reader for the calling thread; dispose it before the store.</summary>
    IBenchReader CreateReader();

    int IFillStore.ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var reader = CreateReader();
        return reader.ReadInOwnTransaction(key, destination);
    }
}
