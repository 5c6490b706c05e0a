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
        var command = new Command("stress", "Kill a writing process again and again and check that nothing acknowledged is lost: a durability harness for your disk.")
        {
            directory, duration, kills, seed, soak, branches, writers, callers, readers, keys, largeValues, storage, compression, lazy,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            TimeSpan? length;
            try
            {
                length = parse.GetValue(duration) is { } text ? ParseDuration(text) : null;
            }
            catch (FormatException e)
            {
                context.Error.WriteLine($"cairn stress: {e.Message}");
                return ExitCodes.Usage;
            }
            var shape = parse.GetValue(largeValues) ? WorkloadShape.LargeValues : new WorkloadShape();
            if (parse.GetValue(keys) is { } keySpace)
                shape = shape with { KeySpace = keySpace };
            var options = new StressOptions(Path.GetFullPath(parse.GetValue(directory)!), ChildStartInfo)
            {
                Duration = length,
                Kills = parse.GetValue(kills),
                Seed = parse.GetValue(seed),
                Branches = parse.GetValue(branches),
                Writers = parse.GetValue(writers),
                Callers = parse.GetValue(callers),
                Readers = parse.GetValue(readers),
                Workload = shape,
                Storage = parse.GetValue(storage),
                JournalCompressionThreshold = parse.GetValue(compression),
                LazyCommits = parse.GetValue(lazy),
                Progress = context.Error,
            };
            try
            {
                options.Validate();
            }
            catch (ArgumentException e)
            {
                context.Error.WriteLine($"cairn stress: {e.Message}");
                return ExitCodes.Usage;
            }
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
        throw new FormatException($"--duration '{text}' is not a length of time (90s, 30m, 2h or hh:mm:ss)");
    }
}
