using System.Globalization;

namespace Cairn.TestChild;

/// <summary>
/// What the <c>shared-crash-writer</c> child runs: a root and its branches, each environment with its own
/// callers, <see cref="Writers"/>[k] threads committing through <c>BeginWrite</c>/<c>Commit</c> and
/// <see cref="Callers"/>[k] callers through the transaction merger (index 0 is the root), and the storage
/// settings every environment opens with.
/// </summary>
public sealed record SharedCrashWriterSettings(CrashWriterSettings Storage, int[] Writers, int[] Callers)
{
    public int Environments => Writers.Length;

    /// <summary>The environments' folders under the test's directory: <c>root</c>, then <c>b1</c>, <c>b2</c>, … for the branches.</summary>
    public static string EnvironmentDirectory(string directory, int index)
        => Path.Combine(directory, index == 0 ? "root" : $"b{index.ToString(CultureInfo.InvariantCulture)}");

    /// <summary>Environment <paramref name="index"/>'s workload: its own seed, so no two environments hold the same data.</summary>
    public static CrashWorkload Workload(long seed, int index) => new(unchecked(seed + index * 1_000_003L));

    /// <summary>Callers of environment <paramref name="index"/> (each has at most one transaction in flight).</summary>
    public int CallersOf(int index) => Writers[index] + Callers[index];

    public IEnumerable<string> ToArguments()
        => ["--env-writers", List(Writers), "--env-callers", List(Callers), .. Storage.ToArguments()];

    /// <summary>Reads <c>--env-writers W0,W1,… --env-callers C0,C1,…</c> and hands the rest to <see cref="CrashWriterSettings.Parse"/>.</summary>
    public static SharedCrashWriterSettings Parse(IReadOnlyList<string> arguments)
    {
        int[]? writers = null, callers = null;
        var storage = new List<string>();
        for (int a = 0; a < arguments.Count; a++)
        {
            if (arguments[a] == "--env-writers" && a + 1 < arguments.Count)
                writers = ParseList(arguments[++a]);
            else if (arguments[a] == "--env-callers" && a + 1 < arguments.Count)
                callers = ParseList(arguments[++a]);
            else
                storage.Add(arguments[a]);
        }
        if (writers is null || callers is null || writers.Length != callers.Length || writers.Length < 1)
            throw new ArgumentException("--env-writers and --env-callers are required, with one number per environment each");
        for (int k = 0; k < writers.Length; k++)
            if (writers[k] < 0 || callers[k] < 0 || writers[k] + callers[k] == 0)
                throw new ArgumentException($"environment {k} has no callers");
        return new SharedCrashWriterSettings(CrashWriterSettings.Parse(storage), writers, callers);
    }

    private static string List(int[] values) => string.Join(',', values.Select(v => v.ToString(CultureInfo.InvariantCulture)));

    private static int[] ParseList(string text) => [.. text.Split(',').Select(v => int.Parse(v, CultureInfo.InvariantCulture))];
}
