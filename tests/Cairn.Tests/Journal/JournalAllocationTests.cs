using Cairn.Journal;
using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Journal;

/// <summary>Building, validating and applying entries allocates no managed memory once buffers have grown.</summary>
public unsafe class JournalAllocationTests
{
    [Theory]
    [InlineData(JournalWriterOptions.CompressionDisabled)]
    [InlineData(0)]
    public void Steady_state_encoding_and_replay_allocate_nothing(int threshold)
    {
        var random = new Random(8);
        var changes = new List<PageChange>();
        for (int i = 0; i < 100; i++)
        {
            var leaf = PageImages.Base(BaseKind.Leaf, 1, 10 + i, random);
            changes.Add(new PageChange(10 + i, 1, leaf, PageImages.Changed(leaf, ChangeKind.LeafInsert, 1, random)));
        }
        changes.Add(new PageChange(200, 1, null, PageImages.Base(BaseKind.Leaf, 1, 200, random)));
        changes.Add(new PageChange(201, 4, null, PageImages.Base(BaseKind.Overflow, 4, 201, random)));
        var repetitive = Enumerable.Range(0, 8192).Select(i => (byte)(i % 7 + 1)).ToArray();
        changes.Add(new PageChange(205, 1, null, repetitive));
        changes.Add(new PageChange(206, 1, null, repetitive)); // compressible: compression saves blocks
        var pinned = changes.Select(c => (Current: NativeRun.From(c.Current), Previous: c.Previous is null ? null : NativeRun.From(c.Previous))).ToArray();
        try
        {
            using var writer = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = threshold });
            using var buffer = new JournalBuffer(4096);
            using var reader = new JournalEntryReader();
            var target = new NullTarget();

            long Encode()
            {
                writer.Begin(buffer, 77, Guid.Empty);
                for (int i = 0; i < changes.Count; i++)
                    writer.AddPage(changes[i].PageNumber, changes[i].PageCount, pinned[i].Current.Pointer, pinned[i].Previous is null ? null : pinned[i].Previous!.Pointer);
                return writer.Finish(new RootRecord(300, 2, JournalTestEntries.SampleRoot), 0);
            }

            int Replay(long size)
            {
                var validation = JournalEntryReader.Validate(buffer.Pointer, size, 0);
                Assert.True(validation.IsValid);
                return reader.Apply(buffer.Pointer, validation, ref target);
            }

            for (int warm = 0; warm < 3; warm++)
                Replay(Encode());
            Assert.Equal(threshold == 0, writer.LastEntry.Compressed);

            long size = 0;
            long encoding = SteadyStateAllocation.Measure(() =>
            {
                for (int round = 0; round < 10; round++)
                    size = Encode();
            });
            long replay = SteadyStateAllocation.Measure(() =>
            {
                for (int round = 0; round < 10; round++)
                    Replay(size);
            });

            Assert.Equal(0, encoding);
            Assert.Equal(0, replay);
        }
        finally
        {
            foreach (var (current, previous) in pinned)
            {
                current.Dispose();
                previous?.Dispose();
            }
        }
    }

    /// <summary>A struct target: pages go to one scratch run, which is what a replay does to memory, minus the file.</summary>
    private struct NullTarget() : IJournalPageTarget
    {
        private readonly NativeRun _scratch = new(8);

        public readonly byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent) => _scratch.Pointer;
    }
}
