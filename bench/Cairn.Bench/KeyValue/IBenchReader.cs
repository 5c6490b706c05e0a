namespace Cairn.Bench.KeyValue;

/// <summary>
/// Reads on one thread. None of these may allocate per key or per item: the benchmarks run with
/// the memory diagnoser and a per-read allocation is a finding, not noise.
/// </summary>
public interface IBenchReader : IDisposable
{
    /// <summary>
    /// What a request handler does: begin a read transaction, get <paramref name="key"/>, copy the
    /// value out (its memory is not valid once the transaction ends), end the transaction.
    /// </summary>
    /// <returns>The value's length, or -1 when the key is absent.</returns>
    int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination);

    /// <summary>
    /// Gets <paramref name="count"/> keys of <paramref name="keys"/> from <paramref name="start"/>
    /// (wrapping at the end) in one read transaction, locating each value without copying it.
    /// </summary>
    /// <returns>How many were found.</returns>
    int ReadManyInOneTransaction(KeySet keys, int start, int count);

    /// <summary>Walks every item in key order in one read transaction with a cursor.</summary>
    ScanTotals ScanAll();
}
