using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// Property tests on histories generated from a real sequential execution (<see cref="HistoryGenerator"/>): they are
/// linearizable whatever the overlap, unknown and failed outcomes included; one impossible read makes them not; the
/// key-by-key check agrees with the whole-history check; the text form round-trips.
/// </summary>
public class GeneratedHistoryTests
{
    private static Arbitrary<GeneratorSettings> Settings(int maxOperations, int maxKeys, int unknownPercent, int failPercent)
    {
        var gen =
            from seed in Gen.Choose(0, int.MaxValue)
            from operations in Gen.Sized(size => Gen.Choose(1, Math.Clamp(size * 4, 1, maxOperations)))
            from keys in Gen.Choose(1, maxKeys)
            from clients in Gen.Choose(1, 8)
            select new GeneratorSettings(seed, operations, keys, clients, unknownPercent, failPercent);
        return Arb.From(gen, Shrink);
    }

    /// <summary>Fewer operations, keys and clients, same seed.</summary>
    private static IEnumerable<GeneratorSettings> Shrink(GeneratorSettings s)
    {
        if (s.Operations > 1)
            yield return s with { Operations = s.Operations / 2 };
        if (s.Operations > 1)
            yield return s with { Operations = s.Operations - 1 };
        if (s.Keys > 1)
            yield return s with { Keys = s.Keys - 1 };
        if (s.Clients > 1)
            yield return s with { Clients = s.Clients - 1 };
    }

    /// <summary>
    /// Runs 100 cases. Sizes are chosen so that the hardest case (every operation on one key, 8 clients) stays far
    /// inside the default limits: over 400 seeds each, at most about 0.5 million of the 10 million steps for the
    /// unknown-outcome property and 0.65 million for the impossible read; no verdict here can be "unknown".
    /// </summary>
    private static void Run(Arbitrary<GeneratorSettings> settings, Action<GeneratorSettings> property) =>
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(100).WithEndSize(100), Prop.ForAll(settings, property));

    [Fact]
    public void Histories_from_a_sequential_execution_are_linearizable() =>
        Run(Settings(400, 4, 0, 0), s =>
        {
            var result = LinearizabilityChecker.Check(HistoryGenerator.Generate(s).History, KeyValueRegisterModel.Instance);
            Assert.True(result.Verdict == Verdict.Linearizable, $"{s}\n{result.Explain()}");
        });

    [Fact]
    public void Unknown_operations_that_did_or_did_not_take_effect_and_failed_ones_keep_them_linearizable()
    {
        int tookEffect = 0, noEffect = 0;
        Run(Settings(100, 4, 15, 10), s =>
        {
            var generated = HistoryGenerator.Generate(s);
            var result = LinearizabilityChecker.Check(generated.History, KeyValueRegisterModel.Instance);
            Assert.True(result.Verdict == Verdict.Linearizable, $"{s}\n{result.Explain()}");
            tookEffect += generated.UnknownTookEffect;
            noEffect += generated.UnknownNoEffect;
        });
        Assert.True(tookEffect > 0 && noEffect > 0, $"took effect {tookEffect}, no effect {noEffect}");
    }

    [Fact]
    public void One_read_of_an_impossible_value_is_always_rejected()
    {
        var kinds = new HashSet<ImpossibleRead.Kind>();
        Run(Settings(100, 4, 5, 5), s =>
        {
            var mutation = ImpossibleRead.Apply(HistoryGenerator.Generate(s).History, new Random(s.Seed));
            var result = LinearizabilityChecker.Check(mutation.History, KeyValueRegisterModel.Instance);
            Assert.True(result.Verdict == Verdict.NotLinearizable,
                $"{s}: op {mutation.Read.Id} now reads {mutation.Value} ({mutation.Why})\n{result.Explain()}");
            Assert.Contains(result.Partitions, p => p.Verdict == Verdict.NotLinearizable && p.Name == OperationCall.Quote(mutation.Read.Call.Key));
            kinds.Add(mutation.Kind);
        });
        Assert.Equal(Enum.GetValues<ImpossibleRead.Kind>(), kinds.Order());
    }

    /// <summary>
    /// P-compositionality and the register model's shortcuts, shown: on small histories with every kind of operation
    /// and outcome, as generated and with one result changed at random (which may or may not break them), checking
    /// key by key gives the verdict of a plain search of the whole map.
    /// </summary>
    [Fact]
    public void Checking_key_by_key_agrees_with_checking_the_whole_map()
    {
        int broken = 0;
        Run(Settings(30, 3, 15, 5), s =>
        {
            var history = HistoryGenerator.Generate(s).History;
            foreach (var candidate in new[] { history, ChangeOneResult(history, new Random(s.Seed)) })
            {
                var byKey = LinearizabilityChecker.Check(candidate, KeyValueRegisterModel.Instance);
                var whole = LinearizabilityChecker.Check(candidate, KeyValueMapModel.Instance);
                Assert.NotEqual(Verdict.Unknown, whole.Verdict);
                Assert.True(byKey.Verdict == whole.Verdict, $"{s}\nby key: {byKey.Explain()}\nwhole: {whole.Explain()}");
                broken += byKey.Verdict == Verdict.NotLinearizable ? 1 : 0;
            }
        });
        Assert.True(broken > 0, "no changed history was rejected: the comparison saw only one verdict");
    }

    /// <summary>An acknowledged read gets another value of its key (or absent), or a compare-and-set's swap flips.</summary>
    private static History ChangeOneResult(History history, Random random)
    {
        var observed = history.Operations
            .Where(o => o.Completion.Outcome == Outcome.Ok && o.Call.Kind is OperationKind.Get or OperationKind.CompareAndSet).ToList();
        var op = observed[random.Next(observed.Count)];
        var values = history.Operations.Where(o => o.Call.Key == op.Call.Key && o.Call.Value is not null)
            .Select(o => o.Call.Value).Append(null).ToList();
        var completion = op.Call.Kind == OperationKind.Get
            ? op.Completion with { Read = values[random.Next(values.Count)] }
            : op.Completion with { Swapped = !op.Completion.Swapped };
        return new History(history.Operations.Select(o => o.Id == op.Id ? o with { Completion = completion } : o), history.TicksPerSecond);
    }

    [Fact]
    public void The_text_form_round_trips() =>
        Run(Settings(200, 4, 20, 10), s =>
        {
            var history = HistoryGenerator.Generate(s).History;
            var parsed = HistoryText.Parse(HistoryText.Write(history));
            Assert.Equal(history.TicksPerSecond, parsed.TicksPerSecond);
            Assert.Equal(history.Operations, parsed.Operations);
        });
}
