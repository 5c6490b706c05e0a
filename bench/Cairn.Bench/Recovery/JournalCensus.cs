using Cairn.Journal;

namespace Cairn.Bench.Recovery;

/// <summary>
/// <c>--journal-census DIR</c>: what a replay of an environment's journals would apply, counted without applying it:
/// page records by encoding, diff ops, and how many diff records a later self-contained record (Full or NewPage) of the
/// same run makes moot. That last share is what a replay "from each page's last full copy" could skip (docs/decisions.md,
/// issue 29, Z recovery), measured on a real image before anyone builds the two-pass replay it needs.
/// </summary>
public static unsafe class JournalCensus
{
    private readonly record struct Record(long PageNumber, int PageCount, PageRecordEncoding Encoding, int Ops);

    public static int Run(string environmentDirectory, TextWriter output)
    {
        var records = new List<Record>();
        long entries = 0, bytes = 0;
        JournalWalk.ValidEntries(environmentDirectory, (entry, in validation) =>
        {
            var header = validation.Header;
            var enumerator = new PageRecordEnumerator(entry + JournalEntryHeader.Size, header.UncompressedPayloadSize, header, validation.Offset);
            while (enumerator.MoveNext())
            {
                var r = enumerator.Current;
                records.Add(new Record(r.PageNumber, r.PageCount, r.Encoding,
                    r.Encoding == PageRecordEncoding.Full ? 0 : CountOps(r.Data, r.EncodedLength)));
            }
            entries++;
            bytes += validation.EntrySize;
        });

        // The last self-contained record of each run (first page, page count): everything on that run before it is moot.
        var lastSelfContained = new Dictionary<(long, int), int>();
        for (int i = 0; i < records.Count; i++)
            if (records[i].Encoding != PageRecordEncoding.Diff)
                lastSelfContained[(records[i].PageNumber, records[i].PageCount)] = i;
        long diffs = 0, diffOps = 0, newPageOps = 0, full = 0, newPages = 0, mootDiffs = 0, mootDiffOps = 0, mootOthers = 0;
        for (int i = 0; i < records.Count; i++)
        {
            var r = records[i];
            bool moot = lastSelfContained.TryGetValue((r.PageNumber, r.PageCount), out int last) && last > i;
            switch (r.Encoding)
            {
                case PageRecordEncoding.Diff:
                    diffs++;
                    diffOps += r.Ops;
                    if (moot)
                    {
                        mootDiffs++;
                        mootDiffOps += r.Ops;
                    }
                    break;
                case PageRecordEncoding.Full:
                    full++;
                    mootOthers += moot ? 1 : 0;
                    break;
                default:
                    newPages++;
                    newPageOps += r.Ops;
                    mootOthers += moot ? 1 : 0;
                    break;
            }
        }
        output.WriteLine($"journal census of {environmentDirectory}: {entries:N0} entries, {bytes:N0} bytes, {records.Count:N0} page records");
        output.WriteLine($"  full {full:N0}, new-page {newPages:N0} ({newPageOps:N0} ops), diff {diffs:N0} ({diffOps:N0} ops)");
        output.WriteLine($"  moot (a later full or new-page record of the same run): diff {mootDiffs:N0} ({mootDiffOps:N0} ops, " +
            $"{100.0 * mootDiffOps / Math.Max(1, diffOps + newPageOps):F1} % of all ops), full or new-page {mootOthers:N0}");
        return 0;
    }

    private static int CountOps(byte* encoded, int length)
    {
        int ops = 0;
        for (long input = 0; input < length; ops++)
        {
            if (!VarInt.TryRead(encoded + input, length - input, out _, out int read))
                break;
            input += read;
            if (!VarInt.TryRead(encoded + input, length - input, out ulong lengthAndKind, out read))
                break;
            input += read;
            if ((lengthAndKind & 1) == 0)
                input += (long)(lengthAndKind >> 1);
        }
        return ops;
    }
}
