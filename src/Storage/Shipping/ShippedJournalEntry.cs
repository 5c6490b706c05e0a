using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Cairn.Journal;

namespace Cairn.Shipping;

/// <summary>
/// One committed transaction as the journal holds it: the engine's own self-validating journal entry
/// (header, page records, padding to 4 KiB), with the transaction id and environment id its header
/// states. <see cref="StorageEnvironment.ReadJournalEntries"/> hands out validated ones; an entry built
/// from received bytes is validated when a replica applies it.
/// </summary>
public sealed class ShippedJournalEntry
{
    /// <summary>
    /// An entry from received bytes, not validated yet (<see cref="StorageEnvironment.Apply"/> checks every hash).
    /// <see cref="TransactionId"/> and <see cref="EnvironmentId"/> are read from the header as it stands (-1 and
    /// empty when the bytes are too short to hold them).
    /// </summary>
    /// <param name="data">The whole entry, from its header to the end of its padding.</param>
    public ShippedJournalEntry(ReadOnlyMemory<byte> data)
    {
        Data = data;
        var span = data.Span;
        TransactionId = span.Length >= TransactionIdOffset + sizeof(long)
            ? BinaryPrimitives.ReadInt64LittleEndian(span[TransactionIdOffset..])
            : -1;
        EnvironmentId = span.Length >= EnvironmentIdOffset + 16 ? new Guid(span.Slice(EnvironmentIdOffset, 16)) : Guid.Empty;
    }

    internal ShippedJournalEntry(long transactionId, Guid environmentId, ReadOnlyMemory<byte> data)
    {
        TransactionId = transactionId;
        EnvironmentId = environmentId;
        Data = data;
    }

    private static readonly int TransactionIdOffset = (int)Marshal.OffsetOf<JournalEntryHeader>(nameof(JournalEntryHeader.TransactionId));
    private static readonly int EnvironmentIdOffset = (int)Marshal.OffsetOf<JournalEntryHeader>(nameof(JournalEntryHeader.EnvironmentId));

    /// <summary>The transaction the entry holds.</summary>
    public long TransactionId { get; }

    /// <summary>The environment that committed it.</summary>
    public Guid EnvironmentId { get; }

    /// <summary>The entry's bytes: a multiple of 4096, header first (docs/on-disk-format.md, "Journal entries").</summary>
    public ReadOnlyMemory<byte> Data { get; }
}
