using Cairn.Journal;
using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Journal;

/// <summary>
/// Building, validating and applying entries allocates no managed memory once buffers have grown.
/// Measured in a test child of its own (<see cref="IsolatedAllocation"/>).
/// </summary>
public unsafe class JournalAllocationTests
{
    private const int Rounds = 10;

    [Theory]
    [InlineData(JournalWriterOptions.CompressionDisabled)]
    [InlineData(0)]
    public void Steady_state_encoding_and_replay_allocate_nothing(int threshold)
    {
        Assert.Equal(0, IsolatedAllocation.Measure(EncodingProbe, threshold));
        Assert.Equal(0, IsolatedAllocation.Measure(ReplayProbe, threshold));
    }

    internal static long EncodingProbe(int threshold)
    {
        using var journal = new WarmJournal(threshold);
        return SteadyStateAllocation.Measure(() =>
        {
            for (int round = 0; round < Rounds; round++)
                journal.Encode();
        });
    }

    internal static long ReplayProbe(int threshold)
    {
        using var journal = new WarmJournal(threshold);
        long size = journal.Encode();
        return SteadyStateAllocation.Measure(() =>
        {
            for (int round = 0; round < Rounds; round++)
                journal.Replay(size);
        });
    }

    /// <summary>
    /// One entry's worth of page changes (leaf diffs, new pages, an overflow run, compressible pages)
    /// in native memory, with a writer, buffer and reader already grown to it.
    /// </summary>
    private sealed class WarmJournal : IDisposable
    {
        private readonly List<PageChange> _changes = [];
        private readonly (NativeRun Current, NativeRun? Previous)[] _pinned;
        private readonly JournalEntryWriter _writer;
        private readonly JournalBuffer _buffer = new(4096);
        private readonly JournalEntryReader _reader = new();
        private NullTarget _target = new();

        public WarmJournal(int threshold)
        {
            var random = new Random(8);
            for (int i = 0; i < 100; i++)
            {
                var leaf = PageImages.Base(BaseKind.Leaf, 1, 10 + i, random);
                _changes.Add(new PageChange(10 + i, 1, leaf, PageImages.Changed(leaf, ChangeKind.LeafInsert, 1, random)));
            }
            _changes.Add(new PageChange(200, 1, null, PageImages.Base(BaseKind.Leaf, 1, 200, random)));
            _changes.Add(new PageChange(201, 4, null, PageImages.Base(BaseKind.Overflow, 4, 201, random)));
            var repetitive = Enumerable.Range(0, 8192).Select(i => (byte)(i % 7 + 1)).ToArray();
            _changes.Add(new PageChange(205, 1, null, repetitive));
            _changes.Add(new PageChange(206, 1, null, repetitive)); // compressible: compression saves blocks
            _pinned = _changes.Select(c => (NativeRun.From(c.Current), c.Previous is null ? null : NativeRun.From(c.Previous))).ToArray();
            _writer = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = threshold });

            for (int warm = 0; warm < 3; warm++)
                Replay(Encode());
            Assert.Equal(threshold == 0, _writer.LastEntry.Compressed);
        }

        public long Encode()
        {
            _writer.Begin(_buffer, 77, Guid.Empty);
            for (int i = 0; i < _changes.Count; i++)
                _writer.AddPage(_changes[i].PageNumber, _changes[i].PageCount, _pinned[i].Current.Pointer, _pinned[i].Previous is null ? null : _pinned[i].Previous!.Pointer);
            return _writer.Finish(new RootRecord(300, 2, JournalTestEntries.SampleRoot), 0);
        }

        public int Replay(long size)
        {
            var validation = JournalEntryReader.Validate(_buffer.Pointer, size, 0);
            Assert.True(validation.IsValid);
            return _reader.Apply(_buffer.Pointer, validation, ref _target);
        }

        public void Dispose()
        {
            _writer.Dispose();
            _buffer.Dispose();
            _reader.Dispose();
            _target.Dispose();
            foreach (var (current, previous) in _pinned)
            {
                current.Dispose();
                previous?.Dispose();
            }
        }
    }

    /// <summary>A struct target: pages go to one scratch run, which is what a replay does to memory, minus the file.</summary>
    private struct NullTarget() : IJournalPageTarget, IDisposable
    {
        private readonly NativeRun _scratch = new(8);

        public readonly byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent) => _scratch.Pointer;

        public readonly void Dispose() => _scratch.Dispose();
    }
}
