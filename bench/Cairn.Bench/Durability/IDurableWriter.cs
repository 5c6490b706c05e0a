namespace Cairn.Bench.Durability;

/// <summary>One caller's handle on an <see cref="IDurableStore"/>. Not thread-safe: one thread at a time.</summary>
public interface IDurableWriter : IDisposable
{
    /// <summary>
    /// One write transaction holding one put of <paramref name="key"/> (insert or overwrite),
    /// committed; returns once the commit is durable (it survives a power cut).
    /// </summary>
    void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value);
}
