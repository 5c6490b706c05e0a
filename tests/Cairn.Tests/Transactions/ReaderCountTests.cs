using Cairn.Transactions;

namespace Cairn.Tests.Transactions;

/// <summary>
/// The close counts read transactions as the reader slots in use other than the engine's own (the writer's, the
/// flusher's, the durable state's). A SIGKILL campaign's child once failed its clean close with
/// <see cref="LiveTransactionsException"/> and no reader open: the count read the flusher's slot twice (once in the
/// total, once to subtract it), and the flusher ended a flush in between.
/// </summary>
public sealed class ReaderCountTests
{
    [Fact]
    public void Internal_slots_are_never_counted_whatever_they_hold()
    {
        var table = new ReaderTable();
        int writer = table.Reserve(), flusher = table.Reserve(), durable = table.Reserve();
        int reader = table.Reserve(), idleReader = table.Reserve();
        table.Publish(writer, 5);
        table.Publish(flusher, 4);
        table.Publish(reader, 5);

        Assert.Equal(1, table.ActiveCountExcept([writer, flusher, durable]));

        table.Publish(durable, 3);
        table.MarkIdle(flusher);
        Assert.Equal(1, table.ActiveCountExcept([writer, flusher, durable]));

        table.Publish(idleReader, 5);
        Assert.Equal(2, table.ActiveCountExcept([writer, flusher, durable]));
        Assert.Equal(4, table.ActiveCount); // the writer's and the durable state's too

        table.MarkIdle(reader);
        table.Release(idleReader);
        Assert.Equal(0, table.ActiveCountExcept([writer, flusher, durable]));
    }

    [Fact]
    public void Slots_beyond_the_first_segment_are_counted_and_excluded_by_their_own_index()
    {
        var table = new ReaderTable();
        var slots = Enumerable.Range(0, 150).Select(_ => table.Reserve()).ToArray();
        foreach (var slot in slots)
            table.Publish(slot, 7);

        Assert.Equal(150, table.ActiveCount);
        Assert.Equal(147, table.ActiveCountExcept([slots[0], slots[70], slots[149]]));
    }

    [Fact]
    public async Task An_internal_slot_going_idle_and_active_while_the_readers_are_counted_never_changes_the_count()
    {
        var table = new ReaderTable();
        int writer = table.Reserve(), flusher = table.Reserve(), durable = table.Reserve();
        int reader = table.Reserve();
        table.Publish(reader, 9);
        using var stop = new CancellationTokenSource();

        // The flusher's slot changes as fast as a thread can change it; every count must still be exactly the one reader.
        var flushing = Task.Factory.StartNew(() =>
        {
            for (long epoch = 10; !stop.IsCancellationRequested; epoch++)
            {
                table.Publish(flusher, epoch);
                table.MarkIdle(flusher);
            }
        }, TaskCreationOptions.LongRunning);
        try
        {
            for (int n = 0; n < 200_000; n++)
                Assert.Equal(1, table.ActiveCountExcept([writer, flusher, durable]));
        }
        finally
        {
            stop.Cancel();
            await flushing;
        }
    }
}
