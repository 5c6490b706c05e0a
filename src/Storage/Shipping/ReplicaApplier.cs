using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Shipping;

/// <summary>
/// A replica's one way to change: applies shipped journal entries as its next transactions. Each entry is checked (its
/// hashes, its environment, exactly the next transaction id) and its pages are rebuilt off to the side
/// (<see cref="ReplicaPages"/>, each entry on the state the one before it leads to) and checked; then the batch is
/// appended to the replica's own journal as it is, in one durable write (the same environment id and transaction ids, so
/// the replica's own recovery replays them after a crash), and only then is each transaction published in turn, so
/// readers see whole transactions only. A refused entry is thrown after the ones before it are applied; it and those
/// after it change nothing. Runs on the replica's writer (under its write lock).
/// </summary>
internal sealed unsafe class ReplicaApplier(StatePublisher states, ScratchAllocator scratch, WriteAheadJournal journal, Guid environmentId,
    string dataFilePath) : IDisposable
{
    /// <summary>At most this many bytes of entries go into one journal write (a single larger entry goes alone).</summary>
    public const long MaxBatchBytes = 8L << 20;

    private readonly JournalEntryReader _reader = new();
    // The batch's entries back to back in an aligned buffer: the journal writes it with O_DIRECT.
    private readonly JournalBuffer _buffer = new(64 * 1024);
    // Pages inside multi-page runs applied here → the run's first page: a later run over a freed one replaces it.
    // Entries may be stale (the flusher took the run out of the page table since); their users check them.
    private readonly Dictionary<long, long> _interiors = [];

    /// <summary>One entry of the batch, built and not yet published.</summary>
    private sealed record Built(ReplicaPages Pages, JournalEntryHeader Header, long Offset, long Length,
        List<(long PageNumber, PageVersion Version)> Versions, List<long> Freed, EnvironmentState StateAfter);

    /// <summary>
    /// Applies <paramref name="entries"/> in order on top of <paramref name="state"/> (the current state, pinned by the
    /// caller) and returns how many; <paramref name="describe"/> names an entry (by its index) in exceptions.
    /// </summary>
    /// <exception cref="ShippedEntryRefusedException">An entry does not validate, belongs to another environment, or does not follow (those before it are applied).</exception>
    public int Apply(EnvironmentState state, IReadOnlyList<ShippedJournalEntry> entries, Func<int, string> describe)
    {
        long total = 0;
        foreach (var entry in entries)
            total += entry.Data.Length;
        _buffer.EnsureCapacity(Math.Max(total, JournalEntryHeader.Alignment));
        var built = new List<Built>(entries.Count);
        int published = 0;
        ShippedEntryRefusedException? refused = null;
        try
        {
            var current = state;
            long offset = 0;
            for (int i = 0; i < entries.Count; i++)
            {
                try
                {
                    var next = Build(current, entries[i], offset, describe(i));
                    built.Add(next);
                    current = next.StateAfter;
                    offset += next.Length;
                }
                catch (ShippedEntryRefusedException e)
                {
                    refused = e;
                    break;
                }
            }
            if (built.Count > 0)
            {
                var end = journal.Append(_buffer.Pointer, offset, built[0].Header.TransactionId, built[^1].Header.TransactionId, built.Count);
                long start = end.EndOffset - offset;
                foreach (var b in built)
                {
                    var position = new JournalPosition(end.Sequence, start + b.Offset + b.Length);
                    states.PublishReplicated(b.Header.TransactionId, b.Header.Root, position, b.Versions, b.Freed, InteriorOwner);
                    b.Pages.Published();
                    published++;
                }
            }
        }
        finally
        {
            foreach (var b in built)
                b.Pages.Dispose(); // frees the runs of any not published
        }
        if (refused is not null)
            throw refused;
        return published;
    }

    /// <summary>Checks one entry, copies it into the batch buffer at <paramref name="offset"/> and rebuilds its pages on <paramref name="state"/>.</summary>
    private Built Build(EnvironmentState state, ShippedJournalEntry entry, long offset, string source)
    {
        long last = state.TransactionId;
        var data = entry.Data.Span;
        byte* bytes = _buffer.Pointer + offset;
        data.CopyTo(new Span<byte>(bytes, data.Length));
        var validation = JournalEntryReader.Validate(bytes, data.Length, offset);
        long transaction = validation.HeaderIsTrusted ? validation.Header.TransactionId : entry.TransactionId;
        if (!validation.IsValid)
            throw new ShippedEntryDamagedException(source, last, transaction, validation.Reason);
        var header = validation.Header;
        if (validation.EntrySize != data.Length)
            throw new ShippedEntryDamagedException(source, last, transaction, $"{data.Length} bytes given for an entry of {validation.EntrySize}");
        if (header.EnvironmentId != environmentId)
            throw new ShippedEntryFromOtherEnvironmentException(source, last, transaction, header.EnvironmentId, environmentId);
        if (transaction != last + 1)
            throw new ShippedEntryOutOfOrderException(source, last, transaction);

        // Written here in this batch, whatever write carried it on the primary: the fields recovery reads about that write say so.
        JournalEntryHeader.StampWrite(bytes, Guid.Empty, offset);
        var pages = new ReplicaPages(state, scratch);
        try
        {
            var target = pages;
            _reader.Apply(bytes, validation, ref target);
            pages.Validate(dataFilePath);
            var freed = pages.TakeFreed(header.Root.FreeSpaceDirectoryPage);
            var versions = pages.Versions(transaction);
            foreach (var (pageNumber, version) in versions)
                for (long page = pageNumber + 1; page < pageNumber + version.PageCount; page++)
                    _interiors[page] = pageNumber;
            // Never published itself: the state the next entry of the batch is built on (the caller's pin keeps its base alive).
            var after = state.Committed(transaction, state.Epoch,
                StatePublisher.WithReplicatedPages(state.Pages, versions, freed, InteriorOwner, removed: null), header.Root, state.JournalPosition);
            return new Built(pages, header, offset, data.Length, versions, freed, after);
        }
        catch (Exception e)
        {
            pages.Dispose();
            if (e is JournalCorruptionException or PageCorruptionException)
                throw new ShippedEntryDamagedException(source, last, transaction, e.Message);
            throw;
        }
    }

    private long InteriorOwner(long page) => _interiors.TryGetValue(page, out long owner) ? owner : -1;

    public void Dispose()
    {
        _reader.Dispose();
        _buffer.Dispose();
    }
}
