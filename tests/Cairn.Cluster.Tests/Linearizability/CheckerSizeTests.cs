using System.Diagnostics;
using Xunit.Abstractions;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// The checker on campaign-sized histories. Verdicts are asserted; the times are printed, never asserted (a loaded
/// machine must not fail a test); targets belong to benchmarks. Each check runs twice and both times are printed:
/// the first includes the JIT's work. The second case shows the other end: every operation on one key, so 10 clients'
/// overlaps all meet in one search; proving such a history not linearizable means exhausting every order up to the
/// bad read, which grows fast with the history's length (campaigns spread over many keys).
/// </summary>
public class CheckerSizeTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(10_000, 100, 10, 2)]
    [InlineData(500, 1, 10, 2)]
    public void Large_histories_check_and_an_impossible_read_among_them_is_found(int operations, int keys, int clients, int unknownPercent)
    {
        var history = HistoryGenerator.Generate(new GeneratorSettings(42, operations, keys, clients, unknownPercent, FailPercent: 1)).History;
        var result = Timed(history, $"{operations} operations, {keys} keys, {clients} clients, {unknownPercent}% unknown");
        Assert.True(result.Verdict == Verdict.Linearizable, result.Explain());

        var mutation = ImpossibleRead.Apply(history, new Random(42));
        var rejected = Timed(mutation.History, $"  the same with one impossible read ({mutation.Kind})");
        Assert.True(rejected.Verdict == Verdict.NotLinearizable, $"op {mutation.Read.Id} reads {mutation.Value} ({mutation.Why})\n{rejected.Explain()}");
    }

    private CheckResult Timed(History history, string what)
    {
        var times = new List<string>();
        CheckResult? result = null;
        for (int run = 0; run < 2; run++)
        {
            long started = Stopwatch.GetTimestamp();
            result = LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance);
            times.Add($"{Stopwatch.GetElapsedTime(started).TotalMilliseconds:0.0} ms");
        }
        output.WriteLine($"{what}: {result!.Verdict}, {result.Steps} steps, {string.Join(" then ", times)}");
        return result;
    }
}
