using System.Globalization;

namespace Cairn.Stress.Protocol;

/// <summary>
/// Everything a child runs, as the parent chose it for one cycle and passes on the child's command line:
/// <c>DIRECTORY --seed S --branches B --writers W0,W1,… --callers C0,C1,… --readers R [shape] [storage]
/// [--kill-at NAME:N] [--sample-ms MS]</c>.
/// </summary>
/// <param name="Writers">Per environment (index 0 is the root): threads committing through <c>BeginWrite</c>/<c>Commit</c>.</param>
/// <param name="Callers">Per environment: callers looping on <c>WriteAsync</c>.</param>
/// <param name="Readers">Per environment: threads checking snapshots (<see cref="Checking.SnapshotInvariants"/>).</param>
/// <param name="KillAt">The kill point to die at, at its <paramref name="KillOccurrence"/>-th event (null: only the parent kills).</param>
/// <param name="SampleMilliseconds">Print a soak sample this often (0: never).</param>
internal sealed record ChildSettings(
    string Directory,
    long Seed,
    WorkloadShape Shape,
    int Branches,
    int[] Writers,
    int[] Callers,
    int Readers,
    StorageSettings Storage,
    KillPoint? KillAt = null,
    int KillOccurrence = 1,
    int SampleMilliseconds = 0)
{
    public int Environments => Branches + 1;

    /// <summary>Callers of environment <paramref name="index"/> with a transaction in flight at once, at most.</summary>
    public int InFlight(int index) => Writers[index] * (Storage.CommitsLazily ? StorageSettings.MaxLazyUnacknowledged + 1 : 1) + Callers[index];

    public string EnvironmentDirectory(int index) => EnvironmentLayout.Directory(Directory, index, Branches);

    public IReadOnlyList<string> ToArguments()
    {
        var arguments = new List<string>
        {
            Directory,
            "--seed", Seed.ToString(CultureInfo.InvariantCulture),
            "--branches", Branches.ToString(CultureInfo.InvariantCulture),
            "--writers", Arguments.List(Writers),
            "--callers", Arguments.List(Callers),
            "--readers", Readers.ToString(CultureInfo.InvariantCulture),
        };
        arguments.AddRange(ShapeArguments.ToArguments(Shape));
        arguments.AddRange(Storage.ToArguments());
        if (KillAt is not null)
            arguments.AddRange(["--kill-at", string.Create(CultureInfo.InvariantCulture, $"{KillAt.Name}:{KillOccurrence}")]);
        if (SampleMilliseconds > 0)
            arguments.AddRange(["--sample-ms", SampleMilliseconds.ToString(CultureInfo.InvariantCulture)]);
        return arguments;
    }

    /// <summary>Reads what <see cref="ToArguments"/> wrote; throws <see cref="ArgumentException"/> on anything else.</summary>
    public static ChildSettings Parse(IReadOnlyList<string> arguments)
    {
        if (arguments.Count < 1 || arguments[0].StartsWith("--", StringComparison.Ordinal))
            throw new ArgumentException("the first argument is the stress directory");
        var options = new Arguments(arguments.Skip(1));
        long seed = options.TakeLong("--seed") ?? throw new ArgumentException("--seed is required");
        int branches = options.TakeInt("--branches") ?? 0;
        int[] writers = options.TakeInts("--writers") ?? [1];
        int[] callers = options.TakeInts("--callers") ?? [0];
        int readers = options.TakeInt("--readers") ?? 0;
        var shape = ShapeArguments.Take(options);
        var storage = StorageSettings.Take(options);
        KillPoint? killAt = null;
        int occurrence = 1;
        if (options.TakeString("--kill-at") is { } kill)
        {
            var parts = kill.Split(':');
            killAt = KillPoint.Named(parts[0]);
            occurrence = parts.Length == 2 ? int.Parse(parts[1], CultureInfo.InvariantCulture) : 1;
        }
        int sample = options.TakeInt("--sample-ms") ?? 0;
        options.ThrowIfAnyLeft();

        shape.Validate();
        if (branches < 0 || writers.Length != branches + 1 || callers.Length != branches + 1)
            throw new ArgumentException("--writers and --callers need one number per environment (the root, then each branch)");
        for (int k = 0; k <= branches; k++)
        {
            if (writers[k] < 0 || callers[k] < 0 || writers[k] + callers[k] == 0)
                throw new ArgumentException($"environment {k} has no writers and no callers");
        }
        if (readers < 0 || occurrence < 1 || sample < 0)
            throw new ArgumentException("--readers, --sample-ms and the kill point's occurrence cannot be negative");
        return new ChildSettings(arguments[0], seed, shape, branches, writers, callers, readers, storage, killAt, occurrence, sample);
    }
}
