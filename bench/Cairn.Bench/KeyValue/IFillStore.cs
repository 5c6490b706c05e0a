namespace Cairn.Bench.KeyValue;

/// <summary>
/// What a fill comparison needs of an engine: open, fill in batches, read a key back to check the fill. The key-value
/// stores (<see cref="IBenchStore"/>) are fill stores; so is RocksDB, which <c>--fill-interleaved</c> compares on fills
/// only (its readers are not part of the read benchmarks).
/// </summary>
public interface IFillStore : IDisposable
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

    /// <summary>Copies the value of <paramref name="key"/> into <paramref name="destination"/>; not timed, not for speed.</summary>
    /// <returns>The value's length, or -1 when the key is absent.</returns>
    int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination);
}
