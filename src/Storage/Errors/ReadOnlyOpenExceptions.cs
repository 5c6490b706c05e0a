namespace Cairn;

/// <summary>
/// A read-only open (<see cref="ReadOnlyEnvironment.Open(StorageOptions)"/>) found no environment: no such
/// directory, or a directory without its data file. Nothing is created.
/// </summary>
public sealed class EnvironmentNotFoundException(string directory, string detail)
    : IOException($"'{directory}': {detail}")
{
    /// <summary>The directory that was to be opened.</summary>
    public string Directory { get; } = directory;
}

/// <summary>
/// A read-only open would have had to change the environment's files to open it (the reason says what), so it
/// refused; nothing was changed. A writable open (<see cref="StorageEnvironment.Open(StorageOptions)"/>) can open it.
/// </summary>
public sealed class ReadOnlyOpenRefusedException(string directory, string reason)
    : IOException($"'{directory}' cannot be opened read-only: {reason}")
{
    /// <summary>The environment's directory.</summary>
    public string Directory { get; } = directory;

    /// <summary>Why it cannot be opened without changing its files.</summary>
    public string Reason { get; } = reason;
}
