using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Bench.Hashing;

/// <summary>What one hashing operation covers: what Cairn hashes for one page or one journal entry.</summary>
public enum HashInput
{
    /// <summary>One 8 KiB page's checksum: bytes [16, 8192), seeded with the page number.</summary>
    Page8K,
    /// <summary>A 4 KiB journal entry: its payload hash (bytes [192, end)) and its header checksum (bytes [0, 184)).</summary>
    Entry4K,
    /// <summary>The same for a 64 KiB entry.</summary>
    Entry64K,
    /// <summary>The same for a 1 MiB entry.</summary>
    Entry1M,
}

/// <summary>A hash with Cairn's signature, for <see cref="HashInputs.Hash{THash}"/> to call without an indirect call.</summary>
public unsafe interface IHash64
{
    static abstract ulong Hash(byte* data, long length, ulong seed);
}

public static unsafe class HashInputs
{
    private const long PageNumber = 123_457;
    private const long TransactionId = 98_765_432;

    /// <summary>The buffer the input lives in: a page or a whole aligned entry.</summary>
    public static int BufferSize(HashInput input) => input switch
    {
        HashInput.Page8K => StorageConstants.PageSize,
        HashInput.Entry4K => 4 << 10,
        HashInput.Entry64K => 64 << 10,
        HashInput.Entry1M => 1 << 20,
        _ => throw new ArgumentOutOfRangeException(nameof(input), input, null),
    };

    /// <summary>Bytes one operation hashes (the entries' last 8 header bytes are the checksum itself).</summary>
    public static long BytesHashed(HashInput input) => input == HashInput.Page8K
        ? StorageConstants.PageSize - PageHeader.ChecksummedFrom
        : BufferSize(input) - JournalEntryHeader.Size + JournalEntryHeader.ChecksummedLength;

    /// <summary>
    /// The hashes Cairn computes for the input in <paramref name="buffer"/> (<see cref="BufferSize"/> bytes),
    /// with the same ranges and seeds as <c>PageChecksum.Compute</c> and <c>JournalEntryWriter</c>.
    /// </summary>
    public static ulong Hash<THash>(byte* buffer, HashInput input) where THash : IHash64
    {
        if (input == HashInput.Page8K)
            return THash.Hash(buffer + PageHeader.ChecksummedFrom, StorageConstants.PageSize - PageHeader.ChecksummedFrom, PageNumber);
        ulong payload = THash.Hash(buffer + JournalEntryHeader.Size, BufferSize(input) - JournalEntryHeader.Size, TransactionId);
        return payload ^ THash.Hash(buffer, JournalEntryHeader.ChecksummedLength, TransactionId);
    }
}
