namespace Cairn.Bench.Durability;

/// <summary>
/// Optional for an <see cref="IDurableStore"/> whose natural API is asynchronous: the
/// concurrent-commit benchmark then drives it with asynchronous callers (tasks that await each put)
/// instead of one blocked thread per caller. Peers with only a blocking API keep their threads.
/// </summary>
public interface IAsyncDurableStore
{
    /// <summary>A writer for one asynchronous caller (one put at a time).</summary>
    IAsyncDurableWriter CreateAsyncWriter();
}

/// <summary>One asynchronous caller's handle; one put at a time.</summary>
public interface IAsyncDurableWriter
{
    /// <summary>
    /// Starts one durable single-put commit: <paramref name="key"/> and <paramref name="value"/> are
    /// copied before this returns; the task completes once the commit is durable.
    /// </summary>
    ValueTask PutAsync(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value);
}
