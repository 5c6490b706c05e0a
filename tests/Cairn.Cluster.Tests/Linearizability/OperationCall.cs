namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>What a client asks of the key-value store.</summary>
public enum OperationKind { Put, Get, Delete, CompareAndSet }

/// <summary>
/// One request as the client made it: the kind, the key and its arguments. A value of <c>null</c> means "absent"
/// (for <see cref="Expected"/>: swap only if the key is absent, which is how a create-if-absent is written).
/// A retried request with the same operation id (the cluster's idempotent writes) is one call, recorded once.
/// </summary>
public sealed record OperationCall(OperationKind Kind, string Key, string? Value = null, string? Expected = null)
{
    public static OperationCall Put(string key, string value) => new(OperationKind.Put, key, value);

    public static OperationCall Get(string key) => new(OperationKind.Get, key);

    public static OperationCall Delete(string key) => new(OperationKind.Delete, key);

    public static OperationCall CompareAndSet(string key, string? expected, string value) => new(OperationKind.CompareAndSet, key, value, expected);

    /// <summary>True when the call can change the store (everything but a read).</summary>
    public bool Writes => Kind != OperationKind.Get;

    public override string ToString() => Kind switch
    {
        OperationKind.Put => $"put({Quote(Key)}, {Quote(Value)})",
        OperationKind.Get => $"get({Quote(Key)})",
        OperationKind.Delete => $"delete({Quote(Key)})",
        _ => $"cas({Quote(Key)}, {Quote(Expected)} -> {Quote(Value)})",
    };

    /// <summary>A value as a person reads it: quoted, or <c>absent</c>.</summary>
    public static string Quote(string? value) => value is null ? "absent" : $"\"{value}\"";
}
