namespace Cairn.Diagnostics;
public enum IoOperationKind : byte { JournalWrite = 1, DataFlush = 2, DataSync = 3 }
public readonly record struct IoOperation(long Sequence, IoOperationKind Kind, DateTime StartUtc, TimeSpan Duration, long Bytes, string FilePath,
    long FirstTransactionId, long LastTransactionId, int TransactionCount, bool Failed);
public sealed class IoStats(int capacity)
{
    private readonly List<IoOperation> _ops = [];
    public int Capacity => capacity;
    public void Record(IoOperationKind kind, long startTimestamp, long endTimestamp, long bytes, string filePath,
                       long firstTransactionId, long lastTransactionId, int transactionCount, bool failed = false)
    {
        lock (_ops) _ops.Add(new IoOperation(_ops.Count, kind, DateTime.UtcNow, System.Diagnostics.Stopwatch.GetElapsedTime(startTimestamp, endTimestamp), bytes, filePath, firstTransactionId, lastTransactionId, transactionCount, failed));
    }
    public IoOperation[] Snapshot() { lock (_ops) return _ops.ToArray(); }
}
