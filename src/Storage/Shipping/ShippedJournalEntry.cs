using Cairn.Journal;

namespace Cairn.Shipping;

/// <summary>
/// One committed transaction as the journal holds it: the engine's own self-validating journal entry
/// (header, page records, padding to 4 KiB), with the transaction id and environment id its header
/// states. <see cref="EnvironmentShipping.ReadJournalEntries"/> hands out validated ones; an entry built
/// from received bytes is validated by its constructor, and again when a replica applies it.
/// </summary>
public sealed class ShippedJournalEntry
{
    /// <summary>
    /// An entry from received bytes, validated first: its header and payload hashes, its format and its length. Only a
    /// valid entry gets a <see cref="TransactionId"/> and an <see cref="EnvironmentId"/>, so a damaged one is never
    /// taken for another environment's or an out-of-order entry; whether it is this replica's next is checked when a
    /// replica applies it (<see cref="ReplicaEnvironment.Apply"/>).
    /// </summary>
    /// <param name="data">The whole entry, from its header to the end of its padding.</param>
    /// <exception cref="ShippedEntryDamagedException">The bytes are not one whole, valid journal entry (the message says what does not validate, and where).</exception>
    public unsafe ShippedJournalEntry(ReadOnlyMemory<byte> data)
    {
        const string Source = "an entry given as bytes";
        JournalEntryValidation validation;
        fixed (byte* entry = data.Span)
            validation = JournalEntryReader.Validate(entry, data.Length, 0);
        if (!validation.IsValid)
            throw new ShippedEntryDamagedException(Source, -1, validation.HeaderIsTrusted ? validation.Header.TransactionId : -1, validation.Reason);
        if (validation.EntrySize != data.Length)
            throw new ShippedEntryDamagedException(Source, -1, validation.Header.TransactionId,
                $"{data.Length} bytes given for an entry of {validation.EntrySize}");
        Data = data;
        TransactionId = validation.Header.TransactionId;
        EnvironmentId = validation.Header.EnvironmentId;
    }

    internal ShippedJournalEntry(long transactionId, Guid environmentId, ReadOnlyMemory<byte> data)
    {
        TransactionId = transactionId;
        EnvironmentId = environmentId;
        Data = data;
    }

    /// <summary>The transaction the entry holds.</summary>
    public long TransactionId { get; }

    /// <summary>The environment that committed it.</summary>
    public Guid EnvironmentId { get; }

    /// <summary>The entry's bytes: a multiple of 4096, header first (docs/on-disk-format.md, "Journal entries").</summary>
    public ReadOnlyMemory<byte> Data { get; }
}
