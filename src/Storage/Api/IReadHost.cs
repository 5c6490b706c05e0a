using Cairn.Transactions;

namespace Cairn;

/// <summary>
/// What a read transaction needs of the environment it reads: the data file's name (for the errors it throws) and
/// where its pooled parts go back when it ends. Both a writable <see cref="StorageEnvironment"/> and a
/// <see cref="ReadOnlyEnvironment"/> serve reads.
/// </summary>
internal interface IReadHost
{
    string DataFilePath { get; }

    /// <summary>A read transaction ended: its context's reader slot goes idle, the context back to the pool.</summary>
    void EndRead(ReadContext context);
}
