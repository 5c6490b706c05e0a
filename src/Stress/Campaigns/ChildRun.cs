using System.Globalization;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

/// <summary>How a child ended and what it reported, per environment (index 0 is the root).</summary>
/// <param name="Start">The last transaction each environment held on opening; null where the child did not get that far.</param>
/// <param name="HighestReported">The highest transaction acknowledged per environment, or its start if none (−1: never started).</param>
/// <param name="Acknowledged">How many transactions each environment acknowledged.</param>
/// <param name="Violations">What its readers reported.</param>
/// <param name="Point">The kill point it died at, if it reached one.</param>
/// <param name="Stopped">It said <c>stopped</c> (a clean stop).</param>
/// <param name="Launch">From starting the process to its <c>opening</c> line (null if it never said it).</param>
/// <param name="Opening">From <c>opening</c> to the last <c>start</c> line: opening the environments, recovery included (null if it never got there).</param>
/// <param name="Writing">From the last <c>start</c> line to the end of its output (its death or exit).</param>
internal sealed record ChildRun(
    int ExitCode,
    long?[] Start,
    long[] HighestReported,
    long[] Acknowledged,
    IReadOnlyList<string> Violations,
    string? Point,
    bool Stopped,
    IReadOnlyList<string> ProtocolErrors,
    string StandardError,
    TimeSpan? Launch,
    TimeSpan? Opening,
    TimeSpan Writing,
    IReadOnlyList<SoakSample> Samples)
{
    /// <summary>What .NET reports for a process ended by SIGKILL (128 + 9).</summary>
    public const int KilledExitCode = 137;

    public long TotalAcknowledged => Acknowledged.Sum();

    /// <summary>Killed (by the parent or at its kill point), with nothing amiss in what it said.</summary>
    public bool WasKilledCleanly => ExitCode == KilledExitCode && !Stopped && ProtocolErrors.Count == 0 && StandardError.Length == 0;

    /// <summary>Stopped on request, closed cleanly, with nothing amiss in what it said.</summary>
    public bool StoppedCleanly => ExitCode == StressChild.StoppedExitCode && Stopped && ProtocolErrors.Count == 0 && StandardError.Length == 0;

    /// <summary>A one-paragraph account for failure messages.</summary>
    public override string ToString()
        => $"exit code {ExitCode}, per environment (start: acknowledged up to highest): " +
           string.Join(", ", Start.Select((s, k) =>
               $"{EnvironmentLayout.Name(k)}: {s?.ToString(CultureInfo.InvariantCulture) ?? "not seen"}: {Acknowledged[k]} up to {HighestReported[k]}")) +
           (Point is not null ? $", died at kill point {Point}" : "") +
           (Stopped ? ", stopped" : "") +
           (Violations.Count > 0 ? $", reader violations: {string.Join("; ", Violations.Take(3))}" : "") +
           (ProtocolErrors.Count > 0 ? $", protocol errors: {string.Join("; ", ProtocolErrors.Take(5))}" : "") +
           (StandardError.Length > 0 ? $", standard error:{Environment.NewLine}{StandardError}" : "");
}
