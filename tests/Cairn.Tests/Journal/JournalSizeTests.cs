using Cairn.Journal;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Journal;

/// <summary>
/// The durability issue's size target: a transaction of 100 random puts (16-byte keys, 100-byte
/// values) into a tree of 100,000 keys journals at most 0.3× the bytes of the pages it modified.
/// Pages come from the real engine: the versions a commit published, diffed against the versions a
/// reader that began before it sees.
/// </summary>
public unsafe class JournalSizeTests(ITestOutputHelper output)
{
    private const int Keys = 100_000;
    private const int Transactions = 20;
    private const int PutsPerTransaction = 100;

    public enum Workload { InsertRandomValues, InsertPatternValues, UpdateRandomValues }

    [Theory]
    [InlineData(Workload.InsertRandomValues)]
    [InlineData(Workload.InsertPatternValues)]
    [InlineData(Workload.UpdateRandomValues)]
    public void Hundred_random_puts_journal_at_most_three_tenths_of_the_modified_pages(Workload workload)
    {
        using var dir = new TestDirectory("journal-size");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { FlushThresholdBytes = 1L << 30 });
        var random = new Random(2026);
        var keys = new List<byte[]>(Keys);
        for (int batch = 0; batch < Keys / 1000; batch++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 1000; i++)
            {
                var key = RandomBytes(random, 16);
                keys.Add(key);
                tree.Put(key, Value(random, workload, key));
            }
            tx.Commit();
        }

        using var writer = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = JournalWriterOptions.CompressionDisabled });
        using var compressing = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = 0 });
        using var buffer = new JournalBuffer();
        var byEncoding = new long[3];
        var largeDiffs = new long[2];
        long pageBytes = 0, payload = 0, entries = 0, compressedEntries = 0, pages = 0, diffs = 0, newPages = 0, full = 0;
        for (int t = 0; t < Transactions; t++)
        {
            using var before = env.BeginRead();
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("t");
                for (int i = 0; i < PutsPerTransaction; i++)
                {
                    var key = workload == Workload.UpdateRandomValues ? keys[random.Next(keys.Count)] : RandomBytes(random, 16);
                    tree.Put(key, Value(random, workload, key));
                }
                tx.Commit();
            }
            using var after = env.BeginRead();
            foreach (var w in new[] { compressing, writer })
            {
                w.Begin(buffer, after.TransactionId, Guid.Empty);
                foreach (var (pageNumber, version) in after.Low.State.Pages)
                {
                    if (version.TransactionId != after.TransactionId)
                        continue;
                    byte* previous = pageNumber < before.Low.State.NextPageNumber ? before.Low.GetPage(pageNumber) : null;
                    w.AddPage(pageNumber, version.PageCount, (byte*)version.Pointer, previous);
                }
                w.Finish(after.Low.State.Root, 0);
            }
            CountBytes(buffer, byEncoding, largeDiffs);
            var stats = writer.LastEntry;
            pageBytes += stats.PageBytes;
            payload += stats.UncompressedPayloadSize;
            entries += stats.EntrySize;
            compressedEntries += compressing.LastEntry.EntrySize;
            pages += stats.Records;
            diffs += stats.DiffRecords;
            newPages += stats.NewPageRecords;
            full += stats.FullRecords;
        }

        double ratio = (double)entries / pageBytes;
        output.WriteLine($"{workload}: {Transactions} transactions of {PutsPerTransaction} puts into {Keys:N0} keys");
        output.WriteLine($"  modified pages per transaction: {pages / (double)Transactions:F1} ({pageBytes / Transactions:N0} bytes); records: {diffs} diff, {newPages} new-page, {full} full");
        output.WriteLine($"  record bytes per transaction: diff {byEncoding[1] / Transactions:N0} (of which {largeDiffs[1] / Transactions:N0} in {largeDiffs[0] / (double)Transactions:F1} diffs over 1 KiB: splits, compactions), new-page {byEncoding[2] / Transactions:N0}, full {byEncoding[0] / Transactions:N0}");
        output.WriteLine($"  payload per transaction: {payload / Transactions:N0} bytes ({(double)payload / pageBytes:F3} of the pages)");
        output.WriteLine($"  entry per transaction (4 KiB aligned): {entries / Transactions:N0} bytes = {ratio:F3} of the pages");
        output.WriteLine($"  entry with compression always tried: {compressedEntries / Transactions:N0} bytes = {(double)compressedEntries / pageBytes:F3} of the pages");
        Assert.True(ratio <= 0.3, $"journal bytes are {ratio:F3} of the modified pages' bytes");
    }

    /// <summary>Adds up the record bytes of the entry in the buffer (the uncompressed writer's, built last) by encoding.</summary>
    private static void CountBytes(JournalBuffer buffer, long[] byEncoding, long[] largeDiffs)
    {
        var validation = JournalEntryReader.Validate(buffer.Pointer, buffer.Capacity, 0);
        Assert.True(validation.IsValid);
        using var reader = new JournalEntryReader();
        byte* payload = reader.GetPayload(buffer.Pointer, validation, out long length);
        var records = new PageRecordEnumerator(payload, length, validation.Header, 0);
        while (records.MoveNext())
        {
            var record = records.Current;
            byEncoding[(int)record.Encoding] += PageRecordHeader.Size + record.EncodedLength;
            if (record.Encoding == PageRecordEncoding.Diff && record.EncodedLength > 1024)
            {
                largeDiffs[0]++;
                largeDiffs[1] += PageRecordHeader.Size + record.EncodedLength;
            }
        }
    }

    private static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    /// <summary>Random values, or the benchmark suite's: the key followed by a fixed non-zero pattern.</summary>
    private static byte[] Value(Random random, Workload workload, byte[] key)
    {
        if (workload != Workload.InsertPatternValues)
            return RandomBytes(random, 100);
        var value = new byte[100];
        for (int i = 0; i < value.Length; i++)
            value[i] = (byte)(0xA5 ^ (i * 37));
        key.CopyTo(value, 0);
        return value;
    }
}
