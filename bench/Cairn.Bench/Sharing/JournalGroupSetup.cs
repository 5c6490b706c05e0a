namespace Cairn.Bench.Sharing;

/// <summary>
/// How the benchmark's environments write their journals: <see cref="Shared"/> (a root and its branches,
/// one journal group), <see cref="Separate"/> (the same number of independent environments, a journal each),
/// or <see cref="RootAlone"/> (the group, with only the root committing: the root's latency baseline).
/// </summary>
public enum JournalGroupSetup
{
    Shared,
    Separate,
    RootAlone,
}

/// <summary>A root and its branches (or independent environments of the same shape), open for one case.</summary>
public sealed class JournalGroupEnvironments : IDisposable
{
    private JournalGroupEnvironments(StorageEnvironment[] environments) => Environments = environments;

    /// <summary>The root (or first environment) first, then the branches.</summary>
    public StorageEnvironment[] Environments { get; }

    public StorageEnvironment Root => Environments[0];

    /// <param name="writesInFlight">The root's <see cref="StorageOptions.JournalGroupMaxInFlightWrites"/>.</param>
    public static JournalGroupEnvironments Open(string directory, JournalGroupSetup setup, int branches, int writesInFlight)
    {
        var root = StorageEnvironment.Open(Options(Path.Combine(directory, "root"), writesInFlight));
        var environments = new StorageEnvironment[branches + 1];
        environments[0] = root;
        for (int b = 1; b <= branches; b++)
        {
            var options = Options(Path.Combine(directory, $"branch{b}"), writesInFlight);
            environments[b] = setup == JournalGroupSetup.Separate ? StorageEnvironment.Open(options) : root.OpenBranch(options);
        }
        return new JournalGroupEnvironments(environments);
    }

    /// <summary>Default options (journal sizes, spares, flushing as users get them), with rings that hold a whole round.</summary>
    private static StorageOptions Options(string directory, int writesInFlight) => new(directory)
    {
        IoStatsCapacity = 1 << 16,
        JournalGroupMaxInFlightWrites = writesInFlight,
    };

    public void Dispose()
    {
        // Branches before their root, so they share to the end.
        for (int i = Environments.Length - 1; i >= 0; i--)
            Environments[i].Dispose();
    }
}
