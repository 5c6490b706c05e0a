namespace Cairn.Bench.KeyValue;

/// <summary>
/// A store with a bulk-load path for keys that arrive in strictly increasing order: LMDB's <c>MDB_APPEND</c> put flag,
/// Cairn's <see cref="Tree.Append"/>. What <c>--fill-interleaved --orders append</c> compares.
/// </summary>
public interface IAppendingStore : IBenchStore
{
    /// <summary>
    /// Puts every key of <paramref name="keys"/> (ascending) with its <see cref="BenchValues"/> value through the
    /// store's append path, <paramref name="batchSize"/> per write transaction, each committed before the next begins.
    /// </summary>
    void AppendBatches(KeySet keys, int batchSize);
}
