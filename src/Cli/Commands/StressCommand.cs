using System.CommandLine;
using System.Globalization;
using Cairn.Stress;

namespace Cairn.Cli.Commands;

/// <summary>
/// <c>cairn stress DIR</c>: a crash campaign (<see cref="StressCampaign"/>) or, with <c>--soak</c>, a soak run
/// (<see cref="SoakCampaign"/>) of the durability harness in <c>src/Stress</c>, its child being this same tool
/// (<see cref="ChildCommand"/>).
/// </summary>
internal static class StressCommand
{
    /// <summary>The hidden command a campaign starts its children with; Program hands it to <see cref="StressChild"/> before any parsing.</summary>
    public const string ChildCommand = "stress-child";

    public const string Notes = """
        A child process runs a mixed workload in DIR (transactions of several keys in several trees through BeginWrite
        and through the merger, readers checking that every snapshot holds whole transactions only, large values,
        deletes) and reports each transaction as it is acknowledged. The parent keeps the expected state, kills the
        child with SIGKILL at random moments and at named points inside the engine, reopens, checks that every
        acknowledged transaction is wholly there and none half there, runs Verify, commits more, and goes again, for
        --duration or --kills. It prints a progress line every second and a report: kills, acknowledged, lost and
        half-applied (both must be 0), reader violations, recovery times (p50/p99/max), throughput, and what the
        durability probe says about DIR's file system (tmpfs makes the figures meaningless). Exit 1 on any violation.
        --soak runs without kills and fails if the child's memory grows without bound.
        --restart-grow runs kill-and-restart rounds on one environment that grows to gigabytes: each round a child
        (engine defaults; one BeginWrite writer in odd rounds, --callers merger callers, 16 by default, in even ones;
        log values of 24 B to 1.3 MiB, deletes of earlier ones, a tree of large values dropped every 37th
        transaction) is killed --kill-after after it starts, a second child recovers, writes for --run-for and is
        stopped cleanly, then the parent opens, compares, verifies and closes. --log-window sets how many log values
        stay live (4000, about 2.6 GB). Stops after --rounds or --duration.
        Use an empty DIR (or one a run with the same --seed left); it is the disk under test: run where your data
        will live. A failure prints its seed: --seed replays the same choices.
        """;

    public static Command Create(CliContext context)
    {
        var directory = new Argument<string>("DIR") { Description = "The directory to run in (created if missing); put it on the disk to be tested." };
        var duration = new Option<string?>("--duration") { Description = "How long to run: 90s, 30m, 2h or hh:mm:ss (default 1m unless --kills is given)." };
        var kills = new Option<int?>("--kills") { Description = "Stop after this many kills." };
        var seed = new Option<long?>("--seed") { Description = "Replay a campaign's choices (printed at its start and in its report)." };
        var soak = new Option<bool>("--soak") { Description = "No kills: writers and readers for --duration, memory sampled every second." };
        var branches = new Option<int>("--branches") { Description = "0: one environment; N: a root and N branches sharing its journal.", DefaultValueFactory = _ => 0 };
        var writers = new Option<int>("--writers") { Description = "BeginWrite/Commit threads per environment (at most, kills vary the mix).", DefaultValueFactory = _ => 1 };
        var callers = new Option<int>("--callers") { Description = "WriteAsync (merger) callers per environment (at most).", DefaultValueFactory = _ => 8 };
        var readers = new Option<int>("--readers") { Description = "Snapshot-checking readers per environment.", DefaultValueFactory = _ => 1 };
        var keys = new Option<int?>("--key-space") { Description = "Distinct keys per tree (default 2000)." };
        var largeValues = new Option<bool>("--large-values") { Description = "Mostly large values (overflow pages)." };
        var storage = new Option<StorageProfile>("--storage") { Description = "Mixed (default), Flushing, NotFlushing or Default: how the child flushes and syncs.", DefaultValueFactory = _ => StorageProfile.Mixed };
        var compression = new Option<int?>("--compression-threshold") { Description = "Compress journal entries of at least this many bytes (LZ4)." };
        var lazy = new Option<bool>("--lazy-commits") { Description = "Writers commit three transactions in four lazily, acknowledging each once the journal holds it." };
        var restartGrow = new Option<bool>("--restart-grow") { Description = "Kill-and-restart rounds on one environment growing to gigabytes (see below)." };
        var rounds = new Option<int?>("--rounds") { Description = "--restart-grow: stop after this many rounds." };
        var killAfter = new Option<string?>("--kill-after") { Description = "--restart-grow: when the first child of a round is killed after it starts: MIN..MAX (default 3.5s..4.9s)." };
        var runFor = new Option<string?>("--run-for") { Description = "--restart-grow: how long the recovering child writes before it is stopped (default 9s)." };
        var logWindow = new Option<int?>("--log-window") { Description = "--restart-grow: log values kept live (default 4000: about 2.6 GB)." };
        var command = new Command("stress", "Kill a writing process again and again and check that nothing acknowledged is lost: a durability harness for your disk.")
        {
            directory, duration, kills, seed, soak, branches, writers, callers, readers, keys, largeValues, storage, compression, lazy,
            restartGrow, rounds, killAfter, runFor, logWindow,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            TimeSpan? length;
            RestartGrowOptions roundOptions;
            try
            {
                length = parse.GetValue(duration) is { } text ? ParseDuration(text) : null;
                roundOptions = RoundOptions(parse.GetValue(rounds), parse.GetValue(killAfter), parse.GetValue(runFor));
            }
            catch (FormatException e)
            {
                context.Error.WriteLine($"cairn stress: {e.Message}");
                return ExitCodes.Usage;
            }
            bool growing = parse.GetValue(restartGrow);
            var shape = growing ? WorkloadShape.RestartGrow : parse.GetValue(largeValues) ? WorkloadShape.LargeValues : new WorkloadShape();
            if (parse.GetValue(keys) is { } keySpace)
                shape = shape with { KeySpace = keySpace };
            if (parse.GetValue(logWindow) is { } window)
                shape = shape with { LogWindow = window };
            var options = new StressOptions(Path.GetFullPath(parse.GetValue(directory)!), ChildStartInfo)
            {
                Duration = length,
                Kills = parse.GetValue(kills),
                Seed = parse.GetValue(seed),
                Branches = parse.GetValue(branches),
                Writers = parse.GetValue(writers),
                // A restart-and-grow round's merger variant runs 16 callers, and its environment keeps the engine's defaults.
                Callers = growing && parse.GetResult(callers) is null or { Implicit: true } ? 16 : parse.GetValue(callers),
                Readers = parse.GetValue(readers),
                Workload = shape,
                Storage = growing && parse.GetResult(storage) is null or { Implicit: true } ? StorageProfile.Default : parse.GetValue(storage),
                JournalCompressionThresholdBytes = parse.GetValue(compression),
                LazyCommits = parse.GetValue(lazy),
                Progress = context.Error,
            };
            // A restart-and-grow checker opens, compares, verifies and closes: nothing of its own between the rounds' children.
            if (growing)
                options = options with { CommitsAfterRecovery = 0 };
            try
            {
                options.Validate();
                roundOptions.Validate();
            }
            catch (ArgumentException e)
            {
                context.Error.WriteLine($"cairn stress: {e.Message}");
                return ExitCodes.Usage;
            }
            if (growing)
                return await RunRestartGrowAsync(context, options, roundOptions, cancellationToken);
            return parse.GetValue(soak) ? await RunSoakAsync(context, options, cancellationToken) : await RunCampaignAsync(context, options, cancellationToken);
        });
        return command;
    }

    private static async Task<int> RunCampaignAsync(CliContext context, StressOptions options, CancellationToken cancellationToken)
    {
        var report = await new StressCampaign(options).RunAsync(cancellationToken);
        context.Output.Write(report.Format());
        return report.Succeeded ? ExitCodes.Success : ExitCodes.Damage;
    }

    private static async Task<int> RunRestartGrowAsync(CliContext context, StressOptions options, RestartGrowOptions rounds,
        CancellationToken cancellationToken)
    {
        var report = await new RestartGrowCampaign(options, rounds).RunAsync(cancellationToken);
        context.Output.Write(report.Format());
        return report.Succeeded ? ExitCodes.Success : ExitCodes.Damage;
    }

    /// <summary>--rounds, --kill-after MIN..MAX and --run-for, over the defaults of <see cref="RestartGrowOptions"/>.</summary>
    private static RestartGrowOptions RoundOptions(int? rounds, string? killAfter, string? runFor)
    {
        var options = new RestartGrowOptions { Rounds = rounds };
        if (killAfter is not null)
        {
            var parts = killAfter.Split("..");
            if (parts.Length > 2)
                throw new FormatException($"--kill-after '{killAfter}' is not MIN..MAX (3.5s..4.9s) or one length of time");
            options = options with { KillAfterMin = ParseDuration(parts[0]), KillAfterMax = ParseDuration(parts[^1]) };
        }
        if (runFor is not null)
            options = options with { RunFor = ParseDuration(runFor) };
        return options;
    }

    private static async Task<int> RunSoakAsync(CliContext context, StressOptions options, CancellationToken cancellationToken)
    {
        var report = await new SoakCampaign(options).RunAsync(cancellationToken);
        context.Output.Write(report.Format());
        return report.Succeeded ? ExitCodes.Success : ExitCodes.Damage;
    }

    /// <summary>
    /// The child is this tool again: its own executable when it runs as one (the installed tool's <c>cairn</c>, or
    /// <c>Cairn.Cli</c>), else <c>dotnet Cairn.Cli.dll</c> (run through the muxer, or hosted by a test runner).
    /// </summary>
    private static System.Diagnostics.ProcessStartInfo ChildStartInfo(IReadOnlyList<string> arguments)
    {
        string? process = Environment.ProcessPath;
        string name = Path.GetFileNameWithoutExtension(process ?? "");
        System.Diagnostics.ProcessStartInfo start;
        if (process is not null && (name == "cairn" || name == "Cairn.Cli"))
            start = new(process);
        else
        {
            start = new(name == "dotnet" ? process! : "dotnet");
            start.ArgumentList.Add(typeof(StressCommand).Assembly.Location);
        }
        start.ArgumentList.Add(ChildCommand);
        foreach (var argument in arguments)
            start.ArgumentList.Add(argument);
        return start;
    }

    /// <summary>90s, 30m, 2h, or a TimeSpan (hh:mm:ss).</summary>
    internal static TimeSpan ParseDuration(string text)
    {
        var units = new Dictionary<char, double> { ['s'] = 1, ['m'] = 60, ['h'] = 3600 };
        if (text.Length > 1 && units.TryGetValue(text[^1], out double seconds)
            && double.TryParse(text[..^1], NumberStyles.Float, CultureInfo.InvariantCulture, out double count) && count > 0)
            return TimeSpan.FromSeconds(count * seconds);
        if (TimeSpan.TryParse(text, CultureInfo.InvariantCulture, out var span) && span > TimeSpan.Zero)
            return span;
        throw new FormatException($"'{text}' is not a length of time (90s, 30m, 2h or hh:mm:ss)");
    }
}
