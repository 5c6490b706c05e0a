using System.Buffers.Binary;

namespace Cairn.Cluster.StateMachine;

/// <summary>
/// The dedup table inside one apply transaction (Raft dissertation §6.3): per client, the last sequence applied and
/// where. Bounded by <c>capacity</c> sessions; past it the session touched longest ago (smallest log index) is
/// evicted, in the same transaction, so every node evicts the same one. A client whose session was evicted, or any
/// client that sends a first write numbered above 1, gets <see cref="ApplyStatus.SessionExpired"/>: its write is
/// refused on every node rather than risked twice.
/// </summary>
internal readonly ref struct SessionTable
{
    private const int SessionValueBytes = 16;
    private readonly Tree sessions;
    private readonly Tree byAge;
    private readonly int capacity;

    public SessionTable(WriteTransaction transaction, int capacity)
    {
        sessions = transaction.CreateTree(ClusterTrees.Sessions);
        byAge = transaction.CreateTree(ClusterTrees.SessionsByAge);
        this.capacity = capacity;
    }

    /// <summary>Whether <paramref name="id"/> may be applied now; if not, the outcome to report instead.</summary>
    public bool Admit(OperationId id, out ApplyOutcome refusal)
    {
        Span<byte> client = stackalloc byte[16];
        id.Client.TryWriteBytes(client);
        if (!sessions.TryGet(client, out var value))
        {
            refusal = new ApplyOutcome(ApplyStatus.SessionExpired, 0);
            return id.Sequence == 1;
        }

        var lastSequence = BinaryPrimitives.ReadInt64LittleEndian(value);
        var lastIndex = BinaryPrimitives.ReadInt64LittleEndian(value[8..]);
        refusal = new ApplyOutcome(ApplyStatus.Duplicate, id.Sequence == lastSequence ? lastIndex : 0);
        return id.Sequence > lastSequence;
    }

    /// <summary>Records that <paramref name="id"/> was applied at <paramref name="index"/>, evicting past the capacity.</summary>
    public void Record(OperationId id, long index)
    {
        Span<byte> client = stackalloc byte[16];
        id.Client.TryWriteBytes(client);
        Span<byte> ageKey = stackalloc byte[24];
        client.CopyTo(ageKey[8..]);
        if (sessions.TryGet(client, out var old))
        {
            BinaryPrimitives.WriteInt64BigEndian(ageKey, BinaryPrimitives.ReadInt64LittleEndian(old[8..]));
            byAge.Delete(ageKey);
        }

        Span<byte> value = stackalloc byte[SessionValueBytes];
        BinaryPrimitives.WriteInt64LittleEndian(value, id.Sequence);
        BinaryPrimitives.WriteInt64LittleEndian(value[8..], index);
        sessions.Put(client, value);
        BinaryPrimitives.WriteInt64BigEndian(ageKey, index);
        byAge.Put(ageKey, ReadOnlySpan<byte>.Empty);
        while (sessions.Count > capacity)
            EvictOldest();
    }

    private void EvictOldest()
    {
        byte[] oldest;
        using (var cursor = byAge.CreateCursor())
        {
            if (!cursor.SeekFirst())
                return;
            oldest = cursor.Key.ToArray();
        }

        byAge.Delete(oldest);
        sessions.Delete(oldest.AsSpan(8));
    }
}
