using System.Runtime.InteropServices;
using Cairn.Hashing;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Tests.Journal;

/// <summary>Native memory for one page run, with guard bytes on both sides to catch stray writes.</summary>
public sealed unsafe class NativeRun : IDisposable
{
    private const int Guard = 64;
    private const byte GuardByte = 0xCD;
    private byte* _block;

    public NativeRun(int pageCount)
    {
        PageCount = pageCount;
        Length = pageCount * StorageConstants.PageSize;
        _block = (byte*)NativeMemory.AlignedAlloc((nuint)(Length + 2 * Guard), 64);
        new Span<byte>(_block, Guard).Fill(GuardByte);
        new Span<byte>(_block + Guard + Length, Guard).Fill(GuardByte);
        Span.Clear();
    }

    public int PageCount { get; }

    public int Length { get; }

    public byte* Pointer => _block + Guard;

    public Span<byte> Span => new(Pointer, Length);

    public bool GuardsIntact =>
        new ReadOnlySpan<byte>(_block, Guard).IndexOfAnyExcept(GuardByte) < 0
        && new ReadOnlySpan<byte>(_block + Guard + Length, Guard).IndexOfAnyExcept(GuardByte) < 0;

    public static NativeRun From(ReadOnlySpan<byte> bytes)
    {
        var run = new NativeRun(bytes.Length / StorageConstants.PageSize);
        bytes.CopyTo(run.Span);
        return run;
    }

    public void Dispose()
    {
        if (_block == null)
            return;
        NativeMemory.AlignedFree(_block);
        _block = null;
    }
}

/// <summary>An in-memory "data file" for replay: runs by first page number, created with garbage on first use.</summary>
internal sealed unsafe class MemoryTarget : IJournalPageTarget, IDisposable
{
    private readonly Random _garbage = new(1234);

    public Dictionary<long, NativeRun> Runs { get; } = [];

    public List<(long PageNumber, int PageCount, bool NeedsContent)> Requests { get; } = [];

    /// <summary>
    /// Mutated entries may aim a diff at a page the test never prepared; a real data file has some
    /// content there, so with this set the target makes up garbage instead of failing the test.
    /// </summary>
    public bool AllowUnknownDiffBases { get; init; }

    public void Set(long pageNumber, ReadOnlySpan<byte> bytes)
    {
        if (Runs.Remove(pageNumber, out var old))
            old.Dispose();
        Runs[pageNumber] = NativeRun.From(bytes);
    }

    public byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent)
    {
        Requests.Add((pageNumber, pageCount, needsCurrentContent));
        if (!Runs.TryGetValue(pageNumber, out var run) || run.PageCount != pageCount)
        {
            Assert.False(needsCurrentContent && !AllowUnknownDiffBases, $"a diff record for page {pageNumber} whose content the target does not have");
            run?.Dispose();
            run = new NativeRun(pageCount);
            _garbage.NextBytes(run.Span);
            Runs[pageNumber] = run;
        }
        return run.Pointer;
    }

    public byte[] Bytes(long pageNumber) => Runs[pageNumber].Span.ToArray();

    public bool GuardsIntact => Runs.Values.All(r => r.GuardsIntact);

    public void Dispose()
    {
        foreach (var run in Runs.Values)
            run.Dispose();
        Runs.Clear();
    }
}

/// <summary>One page run's change in a transaction: its bytes before (null: allocated by it) and after.</summary>
public sealed record PageChange(long PageNumber, int PageCount, byte[]? Previous, byte[] Current)
{
    public override string ToString() =>
        $"page {PageNumber}+{PageCount}: {(Previous is null ? "new" : $"{Previous.AsSpan().CommonPrefixLength(Current)} equal prefix bytes")}";
}

/// <summary>Builds entries from managed page images.</summary>
internal static unsafe class JournalTestEntries
{
    public static readonly TreeState SampleRoot = new()
    {
        RootPage = 4, EntryCount = 1234, BranchPages = 3, LeafPages = 40, OverflowPages = 7, Depth = 2, Flags = 0,
    };

    /// <summary>Builds an entry for <paramref name="changes"/> into <paramref name="buffer"/> and returns its bytes.</summary>
    public static byte[] Build(JournalEntryWriter writer, JournalBuffer buffer, long transactionId, Guid environmentId,
        IReadOnlyList<PageChange> changes, long nextPageNumber, long timestamp = 638_000_000_000_000_000)
    {
        writer.Begin(buffer, transactionId, environmentId);
        foreach (var change in changes)
        {
            fixed (byte* current = change.Current)
            fixed (byte* previous = change.Previous)
                writer.AddPage(change.PageNumber, change.PageCount, current, previous);
        }
        long size = writer.Finish(new RootRecord(nextPageNumber, 2, SampleRoot), timestamp);
        return new ReadOnlySpan<byte>(buffer.Pointer, (int)size).ToArray();
    }

    public static JournalEntryValidation Validate(byte[] entry, long available = -1, long offset = 0)
    {
        fixed (byte* p = entry)
            return JournalEntryReader.Validate(p, available < 0 ? entry.Length : available, offset);
    }

    public static int Apply(JournalEntryReader reader, byte[] entry, MemoryTarget target, long offset = 0)
    {
        fixed (byte* p = entry)
        {
            var validation = JournalEntryReader.Validate(p, entry.Length, offset);
            Assert.True(validation.IsValid, validation.ToString());
            return reader.Apply(p, validation, ref target);
        }
    }

    /// <summary>
    /// An entry with an arbitrary payload and correct hashes, as a buggy (not torn) writer could
    /// produce: for testing what the reader does with bad content behind valid checksums.
    /// </summary>
    public static byte[] Seal(ReadOnlySpan<byte> payload, int records, long transactionId, long nextPageNumber,
        JournalEntryFlags flags = JournalEntryFlags.None, long uncompressedSize = -1, Action<JournalEntryHeader>? check = null)
    {
        var entry = new byte[JournalEntryHeader.EntrySize(payload.Length)];
        payload.CopyTo(entry.AsSpan(JournalEntryHeader.Size));
        var header = new JournalEntryHeader
        {
            Magic = JournalEntryHeader.MagicValue,
            FormatVersion = JournalEntryHeader.CurrentFormatVersion,
            Flags = flags,
            TransactionId = transactionId,
            EnvironmentId = Guid.NewGuid(),
            PageCount = records,
            UncompressedPayloadSize = uncompressedSize < 0 ? payload.Length : uncompressedSize,
            PayloadSize = payload.Length,
            PayloadHash = Checksums.Compute(payload, unchecked((ulong)transactionId)),
            Root = new RootRecord(nextPageNumber, 2, SampleRoot),
        };
        MemoryMarshal.Write(entry, in header);
        Reseal(entry);
        return entry;
    }

    /// <summary>Recomputes both hashes after a test edited the header or payload.</summary>
    public static void Reseal(byte[] entry)
    {
        var header = MemoryMarshal.Read<JournalEntryHeader>(entry);
        ulong seed = unchecked((ulong)header.TransactionId);
        long payloadSize = Math.Clamp(header.PayloadSize, 0, entry.Length - JournalEntryHeader.Size);
        header.PayloadHash = Checksums.Compute(entry.AsSpan(JournalEntryHeader.Size, (int)payloadSize), seed);
        MemoryMarshal.Write(entry, in header);
        header.HeaderChecksum = Checksums.Compute(entry.AsSpan(0, JournalEntryHeader.ChecksummedLength), seed);
        MemoryMarshal.Write(entry, in header);
    }

    /// <summary>
    /// Rewrites a current entry (at the start of <paramref name="entry"/>) as format version 1 wrote it: the same
    /// fields with version 1, both hashes XXH64 (the reference library's, so the test does not lean on Cairn's).
    /// </summary>
    public static void ToFormatVersion1(Span<byte> entry)
    {
        var header = MemoryMarshal.Read<JournalEntryHeader>(entry);
        ulong seed = unchecked((ulong)header.TransactionId);
        header.FormatVersion = 1;
        header.PayloadHash = Hashing.ReferenceXxHash.Xxh64(entry.Slice(JournalEntryHeader.Size, (int)header.PayloadSize), seed);
        MemoryMarshal.Write(entry, in header);
        header.HeaderChecksum = Hashing.ReferenceXxHash.Xxh64(entry[..JournalEntryHeader.ChecksummedLength], seed);
        MemoryMarshal.Write(entry, in header);
    }

    /// <summary>Serialises one page record (header and encoded bytes).</summary>
    public static byte[] Record(long pageNumber, int pageCount, PageRecordEncoding encoding, ReadOnlySpan<byte> encoded, int? encodedLength = null)
    {
        var bytes = new byte[PageRecordHeader.Size + encoded.Length];
        var header = new PageRecordHeader
        {
            PageNumber = pageNumber, PageCount = pageCount, Encoding = encoding, EncodedLength = encodedLength ?? encoded.Length,
        };
        MemoryMarshal.Write(bytes, in header);
        encoded.CopyTo(bytes.AsSpan(PageRecordHeader.Size));
        return bytes;
    }
}
