namespace Cairn.Diagnostics;

/// <summary>
/// One transaction the merger committed: how many callers' operations it held, how long they had waited
/// in the queue, how long the batch executed, and how long its journal write took. Joins the journal
/// write in <see cref="Diagnostics.IoStats"/> through <see cref="TransactionId"/>.
/// </summary>
/// <param name="TransactionId">The transaction (the journal write's first and last transaction id).</param>
/// <param name="Operations">Operations committed in it (failed and cancelled ones are not counted).</param>
/// <param name="AverageQueueWait">Mean time from an operation's enqueue to the merger taking it.</param>
/// <param name="MaxQueueWait">Longest such wait in the batch.</param>
/// <param name="Executing">From the batch's first operation to its journal write being submitted.</param>
/// <param name="JournalWrite">From submission until the write returned (durable).</param>
/// <param name="Reruns">Times the batch was re-run because one of its operations threw.</param>
public readonly record struct MergedBatch(
    long TransactionId,
    int Operations,
    TimeSpan AverageQueueWait,
    TimeSpan MaxQueueWait,
    TimeSpan Executing,
    TimeSpan JournalWrite,
    int Reruns);
