using Cairn.Merger;

namespace Cairn.Tests.Merger;

/// <summary>
/// One of the merger's transactions over <see cref="FakeMergerPipeline"/>. Its id follows the real rule: a
/// transaction that changed something commits as the id of the state it opened on plus one, one that
/// changed nothing keeps that id. Its "pages" are the values its operations applied.
/// </summary>
internal sealed class FakeMergedTransaction(FakeMergerPipeline pipeline, int slot) : IMergedTransaction<FakeTransaction>
{
    private long _baseId;

    public int Slot => slot;

    public FakeTransaction Transaction { get; } = new();

    public long DirtyPages => Transaction.Applied.Count;

    public long TransactionId { get; private set; }

    public void OpenOnPublished() => Open(MergerStep.OpenOnPublished, pipeline.PublishedId);

    public void OpenOnTopOf(IMergedTransaction<FakeTransaction> inflight)
        => Open(MergerStep.OpenOnTopOf, ((FakeMergedTransaction)inflight).TransactionId);

    private void Open(MergerStep step, long baseId)
    {
        _baseId = baseId;
        TransactionId = baseId;
        Transaction.Applied.Clear();
        pipeline.Record(step, slot, baseId);
    }

    public void Rebase() => pipeline.Record(MergerStep.Rebase, slot, pipeline.PublishedId);

    public void Restart()
    {
        Transaction.Applied.Clear();
        pipeline.Record(MergerStep.Restart, slot, _baseId);
    }

    public bool Prepare()
    {
        bool changed = Transaction.Applied.Count > 0;
        TransactionId = changed ? _baseId + 1 : _baseId;
        pipeline.Record(MergerStep.Prepare, slot, TransactionId);
        return changed;
    }

    public void Write() => pipeline.Write(this);

    public void Publish() => pipeline.Publish(this);

    public void Discard()
    {
        pipeline.Record(MergerStep.Discard, slot, TransactionId);
        Transaction.Applied.Clear();
    }

    public void Expire()
    {
        // The fake hands its operations no trees or cursors to end.
    }

    public void Reset()
    {
        Transaction.Applied.Clear();
        TransactionId = 0;
        _baseId = 0;
    }

    public void Dispose()
    {
    }
}
