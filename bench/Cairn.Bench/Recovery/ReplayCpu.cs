using System.Diagnostics;
using System.IO.Hashing;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Bench.Recovery;

/// <summary>
/// <c>--replay-cpu DIR [--rounds N]</c>: the CPU the replay's decoding and applying costs, alone. Reads every valid
/// entry of DIR's journals into memory once, then each round applies all of them through one
/// <see cref="JournalEntryReader"/> into pages in memory (no data file, no disk, no start-up), timing the process's
/// CPU and the wall clock (the first round also allocates the pages; later rounds reuse them); the rebuilt pages' hash after each round tells two builds apart if they ever disagree.
/// On a loaded machine a round's CPU time is the steadier figure (it counts only the replay's own work).
/// </summary>
public static unsafe class ReplayCpu
{
    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        string directory = args[0];
        int rounds = args.Count >= 3 && args[1] == "--rounds" ? int.Parse(args[2]) : 5;
        int at = args.ToList().IndexOf("--threads");
        int threads = at > 0 ? int.Parse(args[at + 1]) : 1;
        if (threads > 1)
            return RunSplit(directory, rounds, threads, output);
        var entries = Load(directory, out long bytes);
        output.WriteLine($"replay CPU of {directory}: {entries.Count:N0} entries, {bytes:N0} bytes in memory, {rounds} rounds");
        using var reader = new JournalEntryReader();
        var cpu = new List<double>();
        using var target = new MemoryPages();
        for (int round = 0; round < rounds; round++)
        {
            target.Zero(); // outside the timing: every round starts from the same pages, allocated by the first
            var process = Process.GetCurrentProcess();
            var cpuBefore = process.TotalProcessorTime;
            long started = Stopwatch.GetTimestamp();
            long records = 0;
            foreach (var (entry, validation) in entries)
                records += reader.Apply((byte*)entry, validation, ref Unsafe.AsRef(in target));
            var wall = Stopwatch.GetElapsedTime(started);
            process.Refresh();
            double cpuMs = (process.TotalProcessorTime - cpuBefore).TotalMilliseconds;
            cpu.Add(cpuMs);
            output.WriteLine($"round {round + 1}: {records:N0} records, CPU {cpuMs:N0} ms, wall {wall.TotalMilliseconds:N0} ms, " +
                $"load {File.ReadAllText("/proc/loadavg").Split(' ')[0]}, pages hash {target.Hash():x16}");
        }
        // The first round also allocates the pages: the figure is of the rounds after it, when there are any.
        var steady = cpu.Count > 1 ? cpu[1..] : cpu;
        steady.Sort();
        output.WriteLine($"CPU per round{(cpu.Count > 1 ? " after the first" : "")}: min {steady[0]:N0} ms, median {steady[steady.Count / 2]:N0} ms");
        foreach (var (entry, _) in entries)
            NativeMemory.Free((void*)entry);
        return 0;
    }

    /// <summary>
    /// <c>--threads N</c>: what applying by page run on N threads could give (issue 29 item 9, lever b). Page runs are
    /// split by their first page's 4 MiB chunk; each thread walks every entry, checks and applies only its own runs'
    /// records into pages of its own. A measuring tool, not the engine's rules: a corrupt entry here could be half
    /// applied by another thread; the figure is the wall time per round (CPU adds up over the threads).
    /// </summary>
    private static int RunSplit(string directory, int rounds, int threads, TextWriter output)
    {
        var entries = Load(directory, out long bytes);
        output.WriteLine($"replay CPU of {directory}: {entries.Count:N0} entries, {bytes:N0} bytes in memory, {rounds} rounds, {threads} threads by page run");
        var readers = Enumerable.Range(0, threads).Select(_ => new JournalEntryReader()).ToArray();
        var targets = Enumerable.Range(0, threads).Select(_ => new MemoryPages()).ToArray();
        var walls = new List<double>();
        for (int round = 0; round < rounds; round++)
        {
            foreach (var target in targets)
                target.Zero();
            var process = Process.GetCurrentProcess();
            var cpuBefore = process.TotalProcessorTime;
            long started = Stopwatch.GetTimestamp();
            var counts = new long[threads];
            var workers = Enumerable.Range(0, threads).Select(part => new Thread(() =>
                counts[part] = ApplyPart(readers[part], entries, targets[part], part, threads))).ToArray();
            foreach (var worker in workers)
                worker.Start();
            foreach (var worker in workers)
                worker.Join();
            var wall = Stopwatch.GetElapsedTime(started);
            process.Refresh();
            walls.Add(wall.TotalMilliseconds);
            output.WriteLine($"round {round + 1}: {counts.Sum():N0} records, CPU {(process.TotalProcessorTime - cpuBefore).TotalMilliseconds:N0} ms, " +
                $"wall {wall.TotalMilliseconds:N0} ms, load {File.ReadAllText("/proc/loadavg").Split(' ')[0]}, pages hash {MemoryPages.Hash(targets):x16}");
        }
        var steady = walls.Count > 1 ? walls[1..] : walls;
        steady.Sort();
        output.WriteLine($"wall per round{(walls.Count > 1 ? " after the first" : "")}: min {steady[0]:N0} ms, median {steady[steady.Count / 2]:N0} ms");
        foreach (var target in targets)
            target.Dispose();
        foreach (var reader in readers)
            reader.Dispose();
        foreach (var (entry, _) in entries)
            NativeMemory.Free((void*)entry);
        return 0;
    }

    private static long ApplyPart(JournalEntryReader reader, List<(nint Entry, JournalEntryValidation Validation)> entries, MemoryPages target,
        int part, int parts)
    {
        long applied = 0;
        foreach (var (entry, validation) in entries)
        {
            byte* payload = reader.GetPayload((byte*)entry, validation, out long length);
            var check = new PageRecordEnumerator(payload, length, validation.Header, validation.Offset);
            while (check.MoveNext())
            {
                var record = check.Current;
                if ((record.PageNumber >> 9) % parts != part || record.Encoding == PageRecordEncoding.Full)
                    continue;
                if (PageDiffDecoder.Validate(record.Data, record.EncodedLength, record.Length) is { } problem)
                    throw check.Corrupt(problem);
            }
            var records = new PageRecordEnumerator(payload, length, validation.Header, validation.Offset);
            while (records.MoveNext())
            {
                var record = records.Current;
                if ((record.PageNumber >> 9) % parts != part)
                    continue;
                byte* page = target.GetPageForWrite(record.PageNumber, record.PageCount, record.Encoding == PageRecordEncoding.Diff);
                if (record.Encoding == PageRecordEncoding.Full)
                    Buffer.MemoryCopy(record.Data, page, record.Length, record.Length);
                else
                {
                    if (record.Encoding == PageRecordEncoding.NewPage)
                        new Span<byte>(page, record.Length).Clear();
                    if (PageDiffDecoder.Apply(record.Data, record.EncodedLength, page, record.Length) is { } problem)
                        throw records.Corrupt(problem);
                }
                applied++;
            }
        }
        return applied;
    }

    /// <summary>Every valid entry of the journals, in log order, each copied into native memory of its own.</summary>
    private static List<(nint Entry, JournalEntryValidation Validation)> Load(string directory, out long bytes)
    {
        var entries = new List<(nint, JournalEntryValidation)>();
        long total = 0;
        JournalWalk.ValidEntries(directory, (entry, in validation) =>
        {
            void* copy = NativeMemory.Alloc((nuint)validation.EntrySize);
            Buffer.MemoryCopy(entry, copy, validation.EntrySize, validation.EntrySize);
            entries.Add(((nint)copy, validation));
            total += validation.EntrySize;
        });
        bytes = total;
        return entries;
    }

    /// <summary>
    /// Page runs by first page, kept from round to round (zeroed between them); a run first patched starts as zeros (no
    /// data file here). They come from a <see cref="ScratchAllocator"/>, as the engine's recovered pages do: its 2 MiB
    /// huge-page arenas fault and miss the TLB far less than 4 KiB malloc pages would, so the figure is the engine's.
    /// </summary>
    private sealed class MemoryPages : IJournalPageTarget, IDisposable
    {
        private readonly Dictionary<long, (nint Pointer, int Count)> _runs = [];
        private readonly ScratchAllocator _scratch = new(retainedSpareBytes: 0);

        public byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent)
        {
            if (_runs.TryGetValue(pageNumber, out var run) && run.Count == pageCount)
                return (byte*)run.Pointer;
            if (run.Pointer != 0)
                _scratch.Free((byte*)run.Pointer, run.Count);
            nint pointer = (nint)_scratch.AllocateZeroed(pageCount);
            _runs[pageNumber] = (pointer, pageCount);
            return (byte*)pointer;
        }

        public void Zero()
        {
            foreach (var (pointer, count) in _runs.Values)
                NativeMemory.Clear((void*)pointer, (nuint)count * StorageConstants.PageSize);
        }

        public ulong Hash() => Hash([this]);

        /// <summary>The hash of the union of several targets' runs, in page order (the same as one target's with them all).</summary>
        public static ulong Hash(IEnumerable<MemoryPages> targets)
        {
            var hash = new XxHash64();
            foreach (var (page, (pointer, count)) in targets.SelectMany(t => t._runs).OrderBy(r => r.Key))
            {
                hash.Append(BitConverter.GetBytes(page));
                hash.Append(new ReadOnlySpan<byte>((void*)pointer, count * StorageConstants.PageSize));
            }
            return hash.GetCurrentHashAsUInt64();
        }

        public void Dispose()
        {
            foreach (var (pointer, count) in _runs.Values)
                _scratch.Free((byte*)pointer, count);
            _runs.Clear();
            _scratch.Dispose();
        }
    }
}
