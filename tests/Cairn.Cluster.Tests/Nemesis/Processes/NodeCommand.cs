namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// How to start a node: the same every time it is restarted, so a restart is the node coming back, not a new one.
/// </summary>
/// <param name="Executable">The program (a path, or a name found on PATH).</param>
/// <param name="Arguments">Its arguments, passed as they are (no shell between).</param>
/// <param name="WorkingDirectory">Where it runs.</param>
/// <param name="Environment">Variables set (or, with a null value, removed) over the test's own environment.</param>
public sealed record NodeCommand(
    string Executable,
    IReadOnlyList<string> Arguments,
    string WorkingDirectory,
    IReadOnlyDictionary<string, string?>? Environment = null)
{
    /// <summary><c>bash -c <paramref name="script"/></c>: the test's stand-in nodes are small shell loops.</summary>
    public static NodeCommand Bash(string script, string workingDirectory, IReadOnlyDictionary<string, string?>? environment = null)
        => new("bash", ["-c", script], workingDirectory, environment);

    public override string ToString() => $"{Executable} {string.Join(' ', Arguments.Select(Quoted))} (in {WorkingDirectory})";

    private static string Quoted(string argument) => argument.Contains(' ', StringComparison.Ordinal) ? $"'{argument}'" : argument;
}
