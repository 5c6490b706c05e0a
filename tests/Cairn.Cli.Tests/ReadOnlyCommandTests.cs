using Cairn.Cli.Tests.Support;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

/// <summary>
/// <c>info</c>, <c>verify</c> and <c>dump</c> open environments read-only: every file's bytes, size and link count,
/// and the folder listing, are the same after the command as before, whatever state the environment is in.
/// </summary>
public class ReadOnlyCommandTests
{
    public static TheoryData<string, string> Cases()
    {
        var cases = new TheoryData<string, string>();
        foreach (var command in new[] { "info", "verify", "dump" })
            foreach (var scenario in new[] { "clean", "recovery", "branch", "damaged-last-entry" })
                cases.Add(command, scenario);
        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void A_command_changes_nothing_it_inspects(string command, string scenario)
    {
        using var environment = Scenario.Create($"cli-ro-{command}-{scenario}", scenario);
        var before = FolderSnapshot.Take(environment.SnapshotRoot);

        var result = command == "dump"
            ? CliRun.Run("dump", environment.Directory, "--tree", environment.Tree)
            : CliRun.Run(command, environment.Directory);

        FolderSnapshot.AssertUnchanged(before, FolderSnapshot.Take(environment.SnapshotRoot), $"cairn {command} on the {scenario} environment");
        int expectedExit = command == "verify" && environment.Damage is not null ? 1 : 0;
        Assert.True(result.ExitCode == expectedExit, result.ToString());
        if (environment.Damage is { } damage)
            Assert.Contains(damage, result.Error);
        switch (command)
        {
            case "info":
                Assert.Contains($"last committed {environment.LastTransaction:N0}", result.Output);
                break;
            case "verify" when environment.Damage is null:
                Assert.StartsWith($"ok: {environment.Directory} as of transaction {environment.LastTransaction:N0}", result.Output);
                break;
            case "dump":
                Assert.Equal(environment.Entries, result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
                break;
        }
    }

    /// <summary>One environment to inspect, the folder to compare, and what the commands must find in it.</summary>
    private sealed record Scenario(IDisposable Owner, string Directory, string SnapshotRoot, string Tree, long Entries, long LastTransaction,
        string? Damage) : IDisposable
    {
        public static Scenario Create(string name, string scenario)
        {
            switch (scenario)
            {
                case "clean":
                    var sample = new SampleEnvironment(name);
                    return new Scenario(sample, sample.Path, sample.Path, "users", 200, sample.LastCommittedTransactionId, null);
                case "recovery":
                    var crashed = new UncleanEnvironment(name, transactions: 5);
                    return new Scenario(crashed, crashed.Path, crashed.Path, "t", 5, 5, null);
                case "branch":
                    var branch = new BranchEnvironment(name, transactions: 6);
                    return new Scenario(branch, branch.BranchPath, branch.GroupPath, "b", 6, 6, null);
                case "damaged-last-entry":
                    var damaged = new UncleanEnvironment(name, transactions: 5);
                    var (offset, transaction) = damaged.DamageLastEntry();
                    return new Scenario(damaged, damaged.Path, damaged.Path, "t", 4, 4,
                        $"damaged or torn: {damaged.FirstJournal}, offset {offset}, transaction {transaction}");
                default:
                    throw new ArgumentException(scenario);
            }
        }

        public void Dispose() => Owner.Dispose();
    }
}
