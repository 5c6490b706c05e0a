using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Shipping;

/// <summary>
/// A replica's one way to change: applies a shipped journal entry as the next transaction. The entry is checked
/// (its hashes, its environment, exactly the next transaction id), its pages are rebuilt off to the side
/// (<see cref="ReplicaPages"/>) and checked, it is appended to the replica's own journal as it is (one durable
/// write: the same environment id and transaction ids, so the replica's own recovery replays it after a crash),
/// and only then published, so readers see whole transactions only. Any refusal leaves the replica as it was.
/// Runs on the replica's writer (under its write lock): one entry at a time.
/// </summary>
internal sealed unsafe class ReplicaApplier(StatePublisher states, ScratchAllocator scratch, IJournalAppender journal, Guid environmentId,
    string dataFilePath) : IDisposable
{
    private readonly JournalEntryReader _reader = new();
    // The entry, copied to an aligned buffer: the journal writes it with O_DIRECT.
    private readonly JournalBuffer _buffer = new(64 * 1024);
    // Pages inside multi-page runs applied here → the run's first page: a later run over a freed one replaces it.
    // Entries may be stale (the flusher took the run out of the page table since); the publisher checks them.
    private readonly Dictionary<long, long> _interiors = [];

    /// <summary>Applies <paramref name="entry"/> on top of <paramref name="state"/> (the current state, pinned by the caller).</summary>
    /// <exception cref="ShippedEntryRefusedException">The entry does not validate, belongs to another environment, or does not follow.</exception>
    public void Apply(EnvironmentState state, ShippedJournalEntry entry, string source)
    {
        long last = state.TransactionId;
        var data = entry.Data.Span;
        _buffer.EnsureCapacity(Math.Max(data.Length, JournalEntryHeader.Alignment));
        data.CopyTo(new Span<byte>(_buffer.Pointer, data.Length));
        var validation = JournalEntryReader.Validate(_buffer.Pointer, data.Length, 0);
        long transaction = validation.HeaderIsTrusted ? validation.Header.TransactionId : entry.TransactionId;
        if (!validation.IsValid)
            throw new ShippedEntryDamagedException(source, last, transaction, validation.Reason);
        var header = validation.Header;
        if (validation.EntrySize != data.Length)
            throw new ShippedEntryDamagedException(source, last, transaction,
                $"{data.Length} bytes given for an entry of {validation.EntrySize}");
        if (header.EnvironmentId != environmentId)
            throw new ShippedEntryFromOtherEnvironmentException(source, last, transaction, header.EnvironmentId, environmentId);
        if (transaction != last + 1)
            throw new ShippedEntryOutOfOrderException(source, last, transaction);

        // Written alone here, whatever write carried it on the primary: the fields recovery reads about that write are reset.
        JournalEntryHeader.StampWrite(_buffer.Pointer, Guid.Empty, 0);
        using var pages = new ReplicaPages(state, scratch);
        try
        {
            var target = pages;
            _reader.Apply(_buffer.Pointer, validation, ref target);
            pages.Validate(dataFilePath);
        }
        catch (Exception e) when (e is JournalCorruptionException or PageCorruptionException)
        {
            throw new ShippedEntryDamagedException(source, last, transaction, e.Message);
        }
        List<long> freed;
        try
        {
            freed = pages.TakeFreed(header.Root.FreeSpaceDirectoryPage);
        }
        catch (PageCorruptionException e)
        {
            throw new ShippedEntryDamagedException(source, last, transaction, e.Message);
        }
        var position = journal.Append(_buffer.Pointer, data.Length, transaction);
        var versions = pages.Versions(transaction);
        states.PublishReplicated(transaction, header.Root, position, versions, freed, InteriorOwner);
        pages.Published();
        foreach (var (pageNumber, version) in versions)
            for (long page = pageNumber + 1; page < pageNumber + version.PageCount; page++)
                _interiors[page] = pageNumber;
    }

    private long InteriorOwner(long page) => _interiors.TryGetValue(page, out long owner) ? owner : -1;

    public void Dispose()
    {
        _reader.Dispose();
        _buffer.Dispose();
    }
}
