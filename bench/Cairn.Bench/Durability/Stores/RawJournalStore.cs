using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// The disk itself, the peer every store is compared to: each "commit" is one 4 KiB O_DIRECT|O_DSYNC
/// write into a pre-zeroed journal-like file (<see cref="PalFile.OpenJournal"/>, as Cairn's journal
/// opens its files), at the next 4 KiB offset, wrapping at the end of the file. The block holds the
/// key and value, so it carries what a one-put journal entry would. No store can commit durably
/// faster than this on the same disk with one write per commit.
/// </summary>
public sealed unsafe class RawJournalStore : IDurableStore
{
    public const int BlockSize = 4096;

    /// <summary>
    /// 64 MiB: 16,384 blocks, so a benchmark run wraps a few times. Every block has been written
    /// (zeroed) before the first commit, so writing one converts no extent and allocates nothing,
    /// the same whether it is the first or a later pass.
    /// </summary>
    public const long FileSize = 64L << 20;

    internal const string FileName = "raw.journal";

    // Block layout: key length, value length (2 bytes each, little-endian), key, value, zeros.
    internal const int HeaderSize = 4;

    private PalFile? _file;
    private string? _path;
    private long _nextOffset;
    private Dictionary<string, byte[]>? _checkIndex;
    private long _checkIndexWritten;

    public void Open(string directory)
    {
        if (_file is not null)
            throw new InvalidOperationException("already open");
        _path = Path.Combine(directory, FileName);
        _file = PalFile.OpenJournal(_path, FileSize);
    }

    public IDurableWriter CreateWriter() => new Writer(this);

    public string Describe()
    {
        var file = File;
        return $"raw: {BlockSize:N0}-byte writes to a pre-zeroed {FileSize >> 20} MiB file, " +
            (file.IsDirect ? "O_DIRECT|O_DSYNC" : "O_DSYNC only (the file system refused O_DIRECT)") + $", {file.FilePath}";
    }

    /// <summary>
    /// Finds the newest block holding <paramref name="key"/>, through an index of the file's blocks
    /// built at the first check read after a write (checks only: it reads the whole file).
    /// </summary>
    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var written = Volatile.Read(ref _nextOffset);
        if (_checkIndex is null || _checkIndexWritten != written)
        {
            _checkIndex = ReadBlocks();
            _checkIndexWritten = written;
        }
        if (!_checkIndex.TryGetValue(Convert.ToHexString(key), out var value))
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    // Every block up to the first never-written (all-zero header) one, oldest first, so that a key
    // written twice maps to its newer value. A run that wrapped has overwritten its oldest blocks.
    private Dictionary<string, byte[]> ReadBlocks()
    {
        var index = new Dictionary<string, byte[]>();
        using var handle = System.IO.File.OpenHandle(_path ?? throw new InvalidOperationException("not open"), FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        var block = new byte[BlockSize];
        for (long offset = 0; offset + BlockSize <= FileSize; offset += BlockSize)
        {
            if (RandomAccess.Read(handle, block, offset) != BlockSize)
                break;
            int keyLength = block[0] | block[1] << 8, valueLength = block[2] | block[3] << 8;
            if (keyLength == 0 && valueLength == 0)
                break;
            index[Convert.ToHexString(block, HeaderSize, keyLength)] = block.AsSpan(HeaderSize + keyLength, valueLength).ToArray();
        }
        return index;
    }

    public void Dispose()
    {
        _file?.Dispose();
        _file = null;
    }

    private PalFile File => _file ?? throw new InvalidOperationException("not open");

    // Concurrent writers each take the next block, so the same file serves several callers.
    private long TakeOffset() => (Interlocked.Add(ref _nextOffset, BlockSize) - BlockSize) % FileSize;

    private sealed class Writer : IDurableWriter
    {
        private readonly RawJournalStore _store;
        private byte* _block;
        private int _used;

        public Writer(RawJournalStore store)
        {
            _store = store;
            // O_DIRECT needs the buffer aligned to the logical block size; 4 KiB covers every disk.
            _block = (byte*)NativeMemory.AlignedAlloc(BlockSize, BlockSize);
            NativeMemory.Clear(_block, BlockSize);
        }

        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            int length = HeaderSize + key.Length + value.Length;
            if (length > BlockSize)
                throw new ArgumentException($"key and value must fit in one {BlockSize}-byte block");
            var block = new Span<byte>(_block, BlockSize);
            if (length < _used)
                block[length.._used].Clear();
            block[0] = (byte)key.Length;
            block[1] = (byte)(key.Length >> 8);
            block[2] = (byte)value.Length;
            block[3] = (byte)(value.Length >> 8);
            key.CopyTo(block[HeaderSize..]);
            value.CopyTo(block[(HeaderSize + key.Length)..]);
            _used = length;
            _store.File.Write(block, _store.TakeOffset());
        }

        public void Dispose()
        {
            NativeMemory.AlignedFree(_block);
            _block = null;
        }
    }
}
