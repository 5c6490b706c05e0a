namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>Hand-written histories for the tests: times are milliseconds, operations get ids in the order added.</summary>
internal sealed class HistoryBuilder
{
    private readonly List<Operation> _ops = [];

    public HistoryBuilder Add(int client, OperationCall call, long from, Completion completion)
    {
        _ops.Add(new Operation(_ops.Count, client, call, from, completion));
        return this;
    }

    public HistoryBuilder Put(int client, string key, string value, long from, long to) =>
        Add(client, OperationCall.Put(key, value), from, Completion.Ok(to));

    public HistoryBuilder Get(int client, string key, string? read, long from, long to) =>
        Add(client, OperationCall.Get(key), from, Completion.OkRead(to, read));

    public HistoryBuilder Delete(int client, string key, long from, long to) =>
        Add(client, OperationCall.Delete(key), from, Completion.Ok(to));

    public HistoryBuilder Cas(int client, string key, string? expected, string value, bool swapped, long from, long to) =>
        Add(client, OperationCall.CompareAndSet(key, expected, value), from, Completion.OkSwapped(to, swapped));

    /// <summary>A put whose client gave up at <paramref name="gaveUp"/> (or never heard back).</summary>
    public HistoryBuilder PutUnknown(int client, string key, string value, long from, long? gaveUp) =>
        Add(client, OperationCall.Put(key, value), from, Completion.Unknown(gaveUp));

    public HistoryBuilder PutFailed(int client, string key, string value, long from, long to) =>
        Add(client, OperationCall.Put(key, value), from, Completion.Fail(to));

    public History Build() => new(_ops, 1000);
}
