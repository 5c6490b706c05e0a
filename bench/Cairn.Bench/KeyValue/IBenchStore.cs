namespace Cairn.Bench.KeyValue;

/// <summary>
/// One engine as the key-value benchmarks drive it. Implementations do what a fast, ordinary user
/// of that engine would do, nothing the other engines could not also do; docs/benchmarks.md holds
/// each one's settings and why.
/// </summary>
/// <remarks>
/// Lifecycle: construct (through <see cref="BenchStores"/>), <see cref="Open"/> once, use, dispose.
/// Reads go through per-thread <see cref="IBenchReader"/>s because a fast reader keeps per-thread
/// state (LMDB's reusable read transaction), and the multi-threaded benchmarks need one each.
/// </remarks>
public interface IBenchStore : IDisposable
{
    /// <summary>Creates or opens the store in an existing, empty or previously filled <paramref name="directory"/>.</summary>
    /// <param name="durable">
    /// True: each commit is durable when it returns (fsync or equivalent). False: commits are atomic
    /// and ordered but are not flushed; a crash may lose recent ones.
    /// </param>
    void Open(string directory, bool durable);

    /// <summary>
    /// Puts every key of <paramref name="keys"/> in order, with its <see cref="BenchValues"/> value,
    /// <paramref name="batchSize"/> puts per write transaction (the last may be smaller), each
    /// committed before the next begins. Plain puts: no append or bulk-load shortcut.
    /// </summary>
    void FillBatches(KeySet keys, int batchSize);

    /// <summary>A reader for the calling thread; dispose it before the store.</summary>
    IBenchReader CreateReader();
}
