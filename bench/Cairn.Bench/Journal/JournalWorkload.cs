using System.Runtime.InteropServices;
using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Bench.Journal;

/// <summary>What a captured transaction did.</summary>
public enum JournalWorkloadKind
{
    /// <summary>100 puts of new random 16-byte keys with random 100-byte values into a tree of 100,000 such keys.</summary>
    Puts100Random,

    /// <summary>The same with the key-value suite's values (the key, then a fixed non-zero pattern): compressible.</summary>
    Puts100Pattern,

    /// <summary>10,000 random puts in one transaction, random values: a large commit touching most leaves.</summary>
    Puts10000Random,

    /// <summary>10,000 random puts in one transaction, pattern values.</summary>
    Puts10000Pattern,

    /// <summary>10,000 puts of keys above every existing key, random values: a bulk load of new, full pages.</summary>
    Append10000Random,

    /// <summary>10,000 appended keys, pattern values.</summary>
    Append10000Pattern,
}

/// <summary>
/// One real transaction's page changes, captured from the engine: a tree of 100,000 random 16-byte
/// keys with 100-byte values is filled (1,000 puts per commit), then one transaction of the
/// workload runs; every page version it published is copied with the version a reader that began
/// before it saw (none for pages above the old high-water mark). Deterministic (fixed seeds).
/// </summary>
public sealed unsafe class JournalWorkload : IDisposable
{
    private const int Keys = 100_000;
    private static readonly Dictionary<JournalWorkloadKind, JournalWorkload> s_cache = [];

    private readonly List<(long PageNumber, int PageCount, nint Current, nint Previous)> _pages = [];

    private JournalWorkload(JournalWorkloadKind kind) => Kind = kind;

    public JournalWorkloadKind Kind { get; }

    public int PageRecords => _pages.Count;

    public long PageBytes { get; private set; }

    public long NextPageNumber { get; private set; }

    /// <summary>A shared, lazily captured instance (for columns and the survey; benchmarks own theirs).</summary>
    public static JournalWorkload Shared(JournalWorkloadKind kind)
    {
        lock (s_cache)
        {
            if (!s_cache.TryGetValue(kind, out var workload))
                s_cache[kind] = workload = Capture(kind);
            return workload;
        }
    }

    public static JournalWorkload Capture(JournalWorkloadKind kind)
    {
        var workload = new JournalWorkload(kind);
        bool pattern = kind is JournalWorkloadKind.Puts100Pattern or JournalWorkloadKind.Puts10000Pattern or JournalWorkloadKind.Append10000Pattern;
        var directory = BenchScratch.Directory($"journal-workload-{kind}");
        try
        {
            using var env = StorageEnvironment.Open(new StorageOptions(directory) { FlushThresholdBytes = 4L << 30 });
            var random = new Random(2026);
            var key = new byte[16];
            var value = new byte[100];
            for (int batch = 0; batch < Keys / 1000; batch++)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree("t");
                for (int i = 0; i < 1000; i++)
                {
                    random.NextBytes(key);
                    key[0] &= 0x7F; // appended keys start with 0x80 and up
                    Value(random, pattern, key, value);
                    tree.Put(key, value);
                }
                tx.Commit();
            }

            using var before = env.BeginRead();
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                int puts = kind is JournalWorkloadKind.Puts100Random or JournalWorkloadKind.Puts100Pattern ? 100 : 10_000;
                bool append = kind is JournalWorkloadKind.Append10000Random or JournalWorkloadKind.Append10000Pattern;
                for (int i = 0; i < puts; i++)
                {
                    if (append)
                    {
                        System.Buffers.Binary.BinaryPrimitives.WriteUInt128BigEndian(key, (UInt128.One << 127) + (UInt128)i);
                    }
                    else
                    {
                        random.NextBytes(key);
                        key[0] &= 0x7F;
                    }
                    Value(random, pattern, key, value);
                    tree.Put(key, value);
                }
                tx.Commit();
            }
            using var after = env.BeginRead();
            foreach (var (pageNumber, version) in after.Low.State.Pages)
            {
                if (version.TransactionId != after.TransactionId)
                    continue;
                long bytes = (long)version.PageCount * Paging.StorageConstants.PageSize;
                nint current = Copy((byte*)version.Pointer, bytes);
                nint previous = pageNumber < before.Low.State.NextPageNumber ? Copy(before.Low.GetPage(pageNumber), bytes) : 0;
                workload._pages.Add((pageNumber, version.PageCount, current, previous));
                workload.PageBytes += bytes;
            }
            workload.NextPageNumber = after.Low.State.NextPageNumber;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
        return workload;
    }

    /// <summary>Builds the transaction's entry; returns its size.</summary>
    internal long Encode(JournalEntryWriter writer, JournalBuffer buffer)
    {
        writer.Begin(buffer, 1000, Guid.Empty);
        foreach (var (pageNumber, pageCount, current, previous) in _pages)
            writer.AddPage(pageNumber, pageCount, (byte*)current, (byte*)previous);
        return writer.Finish(new RootRecord(NextPageNumber, 2, default), 0);
    }

    /// <summary>The uncompressed payload (page records) of the transaction's entry.</summary>
    public byte[] Payload()
    {
        using var writer = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = JournalWriterOptions.CompressionDisabled });
        using var buffer = new JournalBuffer();
        Encode(writer, buffer);
        return new ReadOnlySpan<byte>(buffer.Pointer + JournalEntryHeader.Size, (int)writer.LastEntry.PayloadSize).ToArray();
    }

    private static void Value(Random random, bool pattern, byte[] key, byte[] value)
    {
        if (!pattern)
        {
            random.NextBytes(value);
            return;
        }
        for (int i = 0; i < value.Length; i++)
            value[i] = (byte)(0xA5 ^ (i * 37));
        key.CopyTo(value, 0);
    }

    private static nint Copy(byte* source, long bytes)
    {
        var copy = (byte*)NativeMemory.AlignedAlloc((nuint)bytes, 4096);
        Buffer.MemoryCopy(source, copy, bytes, bytes);
        return (nint)copy;
    }

    public void Dispose()
    {
        foreach (var (_, _, current, previous) in _pages)
        {
            NativeMemory.AlignedFree((void*)current);
            if (previous != 0)
                NativeMemory.AlignedFree((void*)previous);
        }
        _pages.Clear();
    }
}
