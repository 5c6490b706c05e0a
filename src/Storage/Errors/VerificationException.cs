namespace Cairn;

/// <summary>The environment's structures are inconsistent; every problem found is listed.</summary>
public sealed class VerificationException(string dataFilePath, IReadOnlyList<string> problems)
    : Exception($"Verification of '{dataFilePath}' found {problems.Count} problem(s):{Environment.NewLine}  " +
                string.Join(Environment.NewLine + "  ", problems.Take(50)))
{
    /// <summary>The data file of the environment verified.</summary>
    public string FilePath { get; } = dataFilePath;

    /// <summary>Every problem found, one sentence each (the message shows the first 50).</summary>
    public IReadOnlyList<string> Problems { get; } = problems;
}
