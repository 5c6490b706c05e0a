namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>How an operation ended, as the client saw it.</summary>
public enum Outcome
{
    /// <summary>Acknowledged, with its result.</summary>
    Ok,

    /// <summary>Definitely did not happen (the store said so before doing anything).</summary>
    Fail,

    /// <summary>
    /// A timeout, a lost connection or a client that never heard back: it may have taken effect at any time after
    /// its invoke, even after the client gave up, or never; its result is not known.
    /// </summary>
    Unknown,
}

/// <summary>
/// The end of an operation: its outcome, when the client saw it (<c>null</c> when it never did: the history ended
/// first), and its result when <see cref="Outcome.Ok"/>: the value a get read (<c>null</c> = absent) or whether a
/// compare-and-set swapped.
/// </summary>
public readonly record struct Completion(Outcome Outcome, long? At, string? Read = null, bool Swapped = false)
{
    public static Completion Ok(long at) => new(Outcome.Ok, at);

    public static Completion OkRead(long at, string? read) => new(Outcome.Ok, at, read);

    public static Completion OkSwapped(long at, bool swapped) => new(Outcome.Ok, at, Swapped: swapped);

    public static Completion Fail(long at) => new(Outcome.Fail, at);

    public static Completion Unknown(long? at) => new(Outcome.Unknown, at);
}

/// <summary>One operation of a history: who called what when, and how it ended. Times are Stopwatch ticks.</summary>
public sealed record Operation(int Id, int Client, OperationCall Call, long InvokedAt, Completion Completion)
{
    /// <summary>
    /// The latest time the operation can take effect, for the checker: its completion when acknowledged or failed,
    /// and never (<see cref="long.MaxValue"/>) when unknown, whatever time the client gave up at.
    /// </summary>
    public long ReturnForCheck => Completion.Outcome == Outcome.Unknown ? long.MaxValue : Completion.At!.Value;

    /// <summary>The result as a person reads it: <c>ok</c>, the value read, whether it swapped, or the outcome.</summary>
    public string ResultText => Completion.Outcome switch
    {
        Outcome.Ok => Call.Kind switch
        {
            OperationKind.Get => OperationCall.Quote(Completion.Read),
            OperationKind.CompareAndSet => Completion.Swapped ? "swapped" : "not swapped",
            _ => "ok",
        },
        Outcome.Fail => "failed",
        _ => "unknown",
    };

    /// <summary>
    /// One line for a person: id, client, call, result and interval in milliseconds from <paramref name="origin"/>.
    /// </summary>
    public string Describe(long origin, long ticksPerSecond)
    {
        string end = Completion.Outcome == Outcome.Unknown ? "∞" : Milliseconds(Completion.At!.Value - origin, ticksPerSecond);
        return $"op {Id} (client {Client}) {Call} -> {ResultText}  [{Milliseconds(InvokedAt - origin, ticksPerSecond)}, {end}] ms";
    }

    internal static string Milliseconds(long ticks, long ticksPerSecond) =>
        (ticks * 1000.0 / ticksPerSecond).ToString("0.000", System.Globalization.CultureInfo.InvariantCulture);
}
