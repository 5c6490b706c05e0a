using Cairn.Journal;

namespace Cairn.Recovery;

/// <summary>
/// A chunk of one journal, read into a buffer of its own, and the entries in it the reading thread checked whole and
/// decided to apply, in journal order. It stays valid until the applying thread returns it to the
/// <see cref="ReplayHandOver"/>, so the reader can go on reading into other batches meanwhile.
/// </summary>
internal sealed unsafe class ReplayBatch : IDisposable
{
    private readonly List<ReplayEntry> _entries = [];

    public ReplayBatch(long capacity) => Buffer = new JournalBuffer(capacity);

    /// <summary>The chunk's bytes (every entry points into it).</summary>
    public JournalBuffer Buffer { get; }

    /// <summary>The journal the entries were read from (an exception while applying one names it); null while empty.</summary>
    public string? Path { get; private set; }

    public IReadOnlyList<ReplayEntry> Entries => _entries;

    /// <summary>The bytes <see cref="ReplayHandOver"/> counts for this batch while it is out of its pool (its lock guards it).</summary>
    internal long HeldBytes { get; set; }

    /// <summary>Adds a checked entry of <paramref name="path"/> at <paramref name="entry"/>, inside <see cref="Buffer"/>.</summary>
    public void Add(string path, byte* entry, in JournalEntryValidation validation)
    {
        if (entry < Buffer.Pointer || entry + validation.EntrySize > Buffer.Pointer + Buffer.Capacity)
            throw new InvalidOperationException($"The entry at offset {validation.Offset} of '{path}' is not in this batch's buffer.");
        if (Path is not null && Path != path)
            throw new InvalidOperationException($"A batch holds entries of one journal: '{Path}', not '{path}'.");
        Path = path;
        _entries.Add(new ReplayEntry((nint)entry, validation));
    }

    /// <summary>Forgets the entries (the buffer is read into again).</summary>
    public void Clear()
    {
        _entries.Clear();
        Path = null;
    }

    public void Dispose() => Buffer.Dispose();
}

/// <summary>A checked entry to apply: where it is in its batch's buffer, and its validation (offset, header).</summary>
internal readonly record struct ReplayEntry(nint Pointer, JournalEntryValidation Validation);
