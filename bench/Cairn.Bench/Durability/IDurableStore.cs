namespace Cairn.Bench.Durability;

/// <summary>
/// One engine (or the bare disk) as the durable-commit benchmarks drive it: every commit is durable
/// when it returns. docs/benchmarks.md ("Durable commits") holds each one's settings and why.
/// </summary>
/// <remarks>
/// Lifecycle: construct (through <see cref="DurableStores"/>), <see cref="Open"/> once, create one
/// <see cref="IDurableWriter"/> per calling thread, use, dispose the writers, dispose the store.
/// Writers are per caller because that is what concurrent callers need (a SQLite connection each,
/// a raw writer's own aligned buffer); the single-writer benchmark uses one, and the merger issue's
/// 1/4/16/64-caller benchmark can give each thread its own without changing the stores.
/// </remarks>
public interface IDurableStore : IDisposable
{
    /// <summary>Creates the store in an existing directory, or reopens what an earlier instance left there.</summary>
    void Open(string directory);

    /// <summary>A writer for the calling thread; dispose it before the store.</summary>
    IDurableWriter CreateWriter();

    /// <summary>
    /// The settings in force as the store reports them (library and version, modes read back after
    /// open), printed by the benchmark's setup and the self-check so a log shows what was measured.
    /// </summary>
    string Describe();

    /// <summary>
    /// Reads back what a writer committed, for checks only (not timed, may allocate). Returns the
    /// value's length, or -1 when <paramref name="key"/> is absent.
    /// </summary>
    int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination);
}
