namespace Cairn.Diagnostics;

/// <summary>
/// One transaction the merger committed: how many callers' operations it held, how long they had waited
/// in the queue, how long the batch executed, and how long its journal write took. Joins the journal
/// write in <see cref="Diagnostics.IoStats"/> through <see cref="TransactionId"/>.
/// </summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public readonly record struct MergedBatch
{
    /// <summary>The transaction (the journal write's first and last transaction id).</summary>
    public required long TransactionId { get; init; }

    /// <summary>Operations committed in it (failed and cancelled ones are not counted).</summary>
    public required int Operations { get; init; }

    /// <summary>Mean time from an operation's enqueue to the merger taking it.</summary>
    public required TimeSpan AverageQueueWait { get; init; }

    /// <summary>Longest such wait in the batch.</summary>
    public required TimeSpan MaxQueueWait { get; init; }

    /// <summary>From the batch's first operation to its journal write being submitted.</summary>
    public required TimeSpan Executing { get; init; }

    /// <summary>From submission until the write returned (durable).</summary>
    public required TimeSpan JournalWrite { get; init; }

    /// <summary>Times the batch was re-run because one of its operations threw.</summary>
    public required int Reruns { get; init; }
}
