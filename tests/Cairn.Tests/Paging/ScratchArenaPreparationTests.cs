using Cairn.Paging;

namespace Cairn.Tests.Paging;

/// <summary>
/// Arenas prepared ahead of a writer that carves fresh memory: when the preparation starts, what it maps, that a
/// writer takes prepared arenas before mapping its own, that they are zero, and that release and dispose give them
/// back. The preparation runs when the test says (a scheduler that only queues), so nothing here depends on timing.
/// </summary>
public class ScratchArenaPreparationTests
{
    private const int PageSize = StorageConstants.PageSize;
    private const long Arena = ScratchAllocator.ArenaBytes;
    private const int Target = ScratchAllocator.PreparedArenaTarget;

    private sealed class QueuedPreparations
    {
        public readonly Queue<Action> Pending = new();

        public void Schedule(Action work) => Pending.Enqueue(work);

        public void RunAll()
        {
            while (Pending.TryDequeue(out var work))
                work();
        }
    }

    [Fact]
    public unsafe void The_first_fresh_arena_a_writer_maps_starts_one_preparation_which_maps_the_target()
    {
        var queue = new QueuedPreparations();
        using var scratch = new ScratchAllocator(prepareAhead: queue.Schedule);
        byte* page = scratch.Allocate(1);
        Assert.Single(queue.Pending);
        scratch.Allocate(1); // same arena: nothing more to prepare
        Assert.Single(queue.Pending);
        Assert.Equal(Arena, scratch.MappedBytes);

        queue.RunAll();
        Assert.Equal(Target * Arena, scratch.PreparedBytes);
        Assert.Equal((1 + Target) * Arena, scratch.MappedBytes);
        Assert.Equal(2L * PageSize, scratch.BytesInUse);
        scratch.Free(page, 1);
    }

    [Fact]
    public unsafe void A_writer_carves_prepared_arenas_before_mapping_its_own_and_each_one_taken_starts_a_refill()
    {
        var queue = new QueuedPreparations();
        using var scratch = new ScratchAllocator(prepareAhead: queue.Schedule);
        var runs = new List<nint> { (nint)scratch.Allocate(ScratchAllocator.MaxArenaRun) };
        queue.RunAll();
        long mapped = scratch.MappedBytes;

        // Fill the first arena, then carve into the next: it comes from the prepared ones, no new mapping.
        for (int i = 1; i < 5; i++)
            runs.Add((nint)scratch.Allocate(ScratchAllocator.MaxArenaRun));
        Assert.Equal(mapped, scratch.MappedBytes);
        Assert.Equal((Target - 1) * Arena, scratch.PreparedBytes);
        Assert.Single(queue.Pending); // the refill of the one taken

        queue.RunAll();
        Assert.Equal(Target * Arena, scratch.PreparedBytes);
        Assert.Equal(mapped + Arena, scratch.MappedBytes);
        foreach (var run in runs)
            scratch.Free((byte*)run, ScratchAllocator.MaxArenaRun);
    }

    [Fact]
    public unsafe void Pages_carved_from_a_prepared_arena_are_zero_whether_asked_zeroed_or_not()
    {
        var queue = new QueuedPreparations();
        using var scratch = new ScratchAllocator(prepareAhead: queue.Schedule);
        byte* first = scratch.Allocate(ScratchAllocator.MaxArenaRun);
        queue.RunAll();
        var runs = new List<nint>();
        for (int i = 0; i < 3 * ScratchAllocator.PagesPerArena / ScratchAllocator.MaxArenaRun; i++)
        {
            byte* run = i % 2 == 0 ? scratch.AllocateZeroed(ScratchAllocator.MaxArenaRun) : scratch.Allocate(ScratchAllocator.MaxArenaRun);
            var bytes = new Span<byte>(run, ScratchAllocator.MaxArenaRun * PageSize);
            Assert.True(bytes.IndexOfAnyExcept((byte)0) < 0, $"run {i} holds non-zero bytes");
            bytes.Fill(0x5A);
            runs.Add((nint)run);
            queue.RunAll();
        }
        foreach (var run in runs)
            scratch.Free((byte*)run, ScratchAllocator.MaxArenaRun);
        scratch.Free(first, ScratchAllocator.MaxArenaRun);
    }

    [Fact]
    public unsafe void A_kept_empty_arena_is_reused_before_a_prepared_one_and_starts_no_preparation()
    {
        var queue = new QueuedPreparations();
        using var scratch = new ScratchAllocator(retainedSpareBytes: 8 * Arena, prepareAhead: queue.Schedule);
        const int RunsPerArena = ScratchAllocator.PagesPerArena / ScratchAllocator.MaxArenaRun;
        var first = new List<nint>();
        for (int i = 0; i < RunsPerArena; i++)
            first.Add((nint)scratch.Allocate(ScratchAllocator.MaxArenaRun));
        queue.RunAll();
        // Fill a second arena (a prepared one, whose refill runs), then empty the first: it is kept as spare.
        var second = new List<nint>();
        for (int i = 0; i < RunsPerArena; i++)
            second.Add((nint)scratch.Allocate(ScratchAllocator.MaxArenaRun));
        queue.RunAll();
        foreach (var run in first)
            scratch.Free((byte*)run, ScratchAllocator.MaxArenaRun);
        long prepared = scratch.PreparedBytes;
        Assert.Equal(Target * Arena, prepared);

        byte* next = scratch.Allocate(ScratchAllocator.MaxArenaRun); // the second arena is full: the kept one is next
        Assert.True(next == (byte*)first[0], "the kept empty arena is carved first");
        Assert.Empty(queue.Pending);
        Assert.Equal(prepared, scratch.PreparedBytes);
        scratch.Free(next, ScratchAllocator.MaxArenaRun);
        foreach (var run in second)
            scratch.Free((byte*)run, ScratchAllocator.MaxArenaRun);
    }

    [Fact]
    public unsafe void Release_gives_prepared_arenas_back_and_a_preparation_that_runs_after_dispose_maps_nothing()
    {
        var queue = new QueuedPreparations();
        var scratch = new ScratchAllocator(prepareAhead: queue.Schedule);
        byte* page = scratch.Allocate(1);
        queue.RunAll();
        scratch.Free(page, 1);
        Assert.True(scratch.HoldsSpareMemory);
        Assert.Equal((1 + Target) * Arena, scratch.ReleaseSpare());
        Assert.Equal(0, scratch.MappedBytes);
        Assert.Equal(0, scratch.PreparedBytes);

        scratch.Allocate(1); // maps again and schedules a preparation, which runs only after the dispose
        Assert.Single(queue.Pending);
        scratch.Dispose();
        queue.RunAll();
        Assert.Equal(0, scratch.PreparedBytes);
    }

    [Fact]
    public unsafe void Without_a_scheduler_nothing_is_prepared()
    {
        using var scratch = new ScratchAllocator();
        var runs = new List<nint>();
        for (int i = 0; i < 9; i++)
            runs.Add((nint)scratch.Allocate(ScratchAllocator.MaxArenaRun));
        Assert.Equal(3 * Arena, scratch.MappedBytes);
        Assert.Equal(0, scratch.PreparedBytes);
        foreach (var run in runs)
            scratch.Free((byte*)run, ScratchAllocator.MaxArenaRun);
    }
}
