using System.Collections.Immutable;
using System.Text;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// The same key-value store as <see cref="KeyValueRegisterModel"/>, but as one state (the whole map), not
/// partitioned, and with none of the register model's shortcuts (no operation left out as unobservable, none placed
/// early as read-only): a plain search, slower, there so the tests can show that checking key by key with the
/// shortcuts gives the same verdicts.
/// </summary>
public sealed class KeyValueMapModel : IModel<ImmutableDictionary<string, string>>
{
    public static readonly KeyValueMapModel Instance = new();

    public ImmutableDictionary<string, string> Initial => ImmutableDictionary.Create<string, string>(StringComparer.Ordinal);

    public string? PartitionOf(Operation op) => null;

    public bool TryStep(ImmutableDictionary<string, string> state, Operation op, out ImmutableDictionary<string, string> next)
    {
        string key = op.Call.Key;
        string? current = state.GetValueOrDefault(key);
        bool legal = KeyValueRegisterModel.Step(current, op, out string? value);
        next = value is null ? state.Remove(key) : state.SetItem(key, value);
        return legal;
    }

    public bool StatesEqual(ImmutableDictionary<string, string> a, ImmutableDictionary<string, string> b) =>
        a.Count == b.Count && a.All(kv => b.TryGetValue(kv.Key, out var v) && v == kv.Value);

    public int HashState(ImmutableDictionary<string, string> state)
    {
        int hash = state.Count;
        foreach (var (key, value) in state)
            hash ^= HashCode.Combine(StringComparer.Ordinal.GetHashCode(key), StringComparer.Ordinal.GetHashCode(value));
        return hash;
    }

    public string Describe(ImmutableDictionary<string, string> state)
    {
        var text = new StringBuilder("{");
        foreach (var (key, value) in state.OrderBy(kv => kv.Key, StringComparer.Ordinal))
            text.Append(text.Length > 1 ? ", " : "").Append(key).Append('=').Append(OperationCall.Quote(value));
        return text.Append('}').ToString();
    }
}
