namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>What <see cref="HistoryGenerator"/> makes: sizes, the share of unknown and failed outcomes, whether to use compare-and-set.</summary>
public sealed record GeneratorSettings(int Seed, int Operations, int Keys, int Clients, int UnknownPercent = 0, int FailPercent = 0, bool CompareAndSet = true);

/// <summary>A generated history, with how many of its unknown operations took effect and how many did not.</summary>
public sealed record GeneratedHistory(History History, int UnknownTookEffect, int UnknownNoEffect);

/// <summary>
/// Histories that are linearizable by construction: each client runs its operations one after another with random
/// gaps and durations; each operation that takes effect gets a linearization point inside its interval (an
/// unknown one anywhere after its invoke, even after its client gave up); the operations are then executed one at a
/// time in the order of those points against a dictionary, which gives every result. Failed operations and unknown
/// ones chosen not to take effect are left out of that execution. A last read of a random key, after every point,
/// makes sure each history holds an acknowledged read. Values are unique ("v" + id), so a read names its write.
/// </summary>
public static class HistoryGenerator
{
    public static GeneratedHistory Generate(GeneratorSettings s)
    {
        var random = new Random(s.Seed);
        var drafts = new List<Draft>();
        var clientTime = new long[s.Clients];
        var written = Enumerable.Range(0, s.Keys).Select(_ => new List<string>()).ToArray();
        for (int id = 0; id < s.Operations; id++)
        {
            int client = random.Next(s.Clients);
            int key = random.Next(s.Keys);
            var call = RandomCall(random, s, $"k{key}", $"v{id}", written[key]);
            long invoke = clientTime[client] + random.Next(0, 20);
            long end = invoke + random.Next(1, 100);
            clientTime[client] = end;
            var fate = RandomFate(random, s, id);
            long? point = fate switch
            {
                Fate.Acknowledged => random.NextInt64(invoke, end + 1),
                Fate.UnknownTookEffect => invoke + random.Next(0, 300),
                _ => null,
            };
            drafts.Add(new Draft(id, client, call, invoke, end, fate, point));
        }
        long last = drafts.Count == 0 ? 0 : drafts.Max(d => Math.Max(d.End, d.Point ?? 0)) + 1;
        drafts.Add(new Draft(drafts.Count, 0, OperationCall.Get($"k{random.Next(s.Keys)}"), last, last + 1, Fate.Acknowledged, last));
        return new GeneratedHistory(new History(Execute(drafts), 1000),
            drafts.Count(d => d.Fate == Fate.UnknownTookEffect), drafts.Count(d => d.Fate == Fate.UnknownNoEffect));
    }

    private enum Fate { Acknowledged, Failed, UnknownTookEffect, UnknownNoEffect }

    private sealed record Draft(int Id, int Client, OperationCall Call, long Invoke, long End, Fate Fate, long? Point);

    private static OperationCall RandomCall(Random random, GeneratorSettings s, string key, string value, List<string> written)
    {
        int roll = random.Next(100);
        if (roll < 40)
        {
            written.Add(value);
            return OperationCall.Put(key, value);
        }
        if (roll < 80)
            return OperationCall.Get(key);
        if (roll < 87 || !s.CompareAndSet)
            return OperationCall.Delete(key);
        // Expect absent or one of the last few values written to the key, so some swaps succeed and some do not.
        int pick = random.Next(Math.Min(written.Count, 3) + 1);
        string? expected = pick == 0 ? null : written[^pick];
        written.Add(value);
        return OperationCall.CompareAndSet(key, expected, value);
    }

    /// <summary>Reads can be unknown or failed too (they are left out by the checker, which is part of what is tested).</summary>
    private static Fate RandomFate(Random random, GeneratorSettings s, int id)
    {
        int roll = random.Next(100);
        if (roll < s.FailPercent)
            return Fate.Failed;
        if (roll < s.FailPercent + s.UnknownPercent)
            return random.Next(2) == 0 ? Fate.UnknownTookEffect : Fate.UnknownNoEffect;
        return Fate.Acknowledged;
    }

    private static IEnumerable<Operation> Execute(List<Draft> drafts)
    {
        var store = new Dictionary<string, string>(StringComparer.Ordinal);
        var completions = new Completion[drafts.Count];
        foreach (var d in drafts.Where(d => d.Point is not null).OrderBy(d => d.Point).ThenBy(d => d.Id))
        {
            string? current = store.GetValueOrDefault(d.Call.Key);
            string? next = current;
            var completion = Completion.Ok(d.End);
            switch (d.Call.Kind)
            {
                case OperationKind.Put:
                    next = d.Call.Value;
                    break;
                case OperationKind.Delete:
                    next = null;
                    break;
                case OperationKind.Get:
                    completion = Completion.OkRead(d.End, current);
                    break;
                default:
                    bool swapped = current == d.Call.Expected;
                    next = swapped ? d.Call.Value : current;
                    completion = Completion.OkSwapped(d.End, swapped);
                    break;
            }
            if (next is null)
                store.Remove(d.Call.Key);
            else
                store[d.Call.Key] = next;
            completions[d.Id] = d.Fate == Fate.Acknowledged ? completion : Completion.Unknown(d.End);
        }
        foreach (var d in drafts)
        {
            var completion = d.Fate switch
            {
                Fate.Failed => Completion.Fail(d.End),
                Fate.UnknownNoEffect => Completion.Unknown(d.End),
                _ => completions[d.Id],
            };
            yield return new Operation(d.Id, d.Client, d.Call, d.Invoke, completion);
        }
    }
}
