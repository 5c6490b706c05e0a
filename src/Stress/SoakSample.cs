namespace Cairn.Stress;

/// <summary>One second of a soak run, as the child measured itself.</summary>
/// <param name="Elapsed">Since the child's environments opened.</param>
/// <param name="ResidentBytes">The child's resident set (VmRSS).</param>
/// <param name="ManagedHeapBytes">The managed heap (<see cref="GC.GetTotalMemory(bool)"/>, without collecting).</param>
/// <param name="ScratchBytes">Scratch memory of all its environments (<see cref="StorageEnvironment.ScratchBytesInUse"/>).</param>
/// <param name="MergerQueueLength">Operations waiting in its mergers' queues (the engine's <c>cairn.merger.queue.depth</c> gauge).</param>
/// <param name="JournalBytes">Journal bytes on disk that recovery may need, summed over its environments (<see cref="StorageEnvironment.JournalBytesOnDisk"/>).</param>
/// <param name="Acknowledged">Transactions acknowledged so far.</param>
public sealed record SoakSample(TimeSpan Elapsed, long ResidentBytes, long ManagedHeapBytes, long ScratchBytes, int MergerQueueLength,
    long JournalBytes, long Acknowledged);
