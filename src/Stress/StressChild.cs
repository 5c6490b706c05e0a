using Cairn.Stress.Child;
using Cairn.Stress.Protocol;

namespace Cairn.Stress;

/// <summary>
/// The child side of a stress campaign: the whole job of a process the campaign starts (through
/// <see cref="StressOptions.ChildStartInfo"/>) and kills. It opens the environments in the directory, runs the
/// workload in them, and reports every acknowledged transaction on its standard output before the committing
/// thread starts the next one.
/// </summary>
/// <remarks>
/// A host exposes it as a command of its own (the test suite's <c>Cairn.TestChild stress-child</c>, the tool's
/// hidden child command) that passes its arguments through unchanged. Standard input is the stop signal: a
/// <c>stop</c> line or its end stops the child cleanly.
/// </remarks>
public static class StressChild
{
    /// <summary>Asked to stop, every environment closed cleanly.</summary>
    public const int StoppedExitCode = 0;

    /// <summary>The arguments were not a campaign's.</summary>
    public const int UsageExitCode = 2;

    /// <summary>An environment did not open, or a writer, caller or reader threw; the error is on standard error.</summary>
    public const int FailedExitCode = 3;

    public static int Run(IReadOnlyList<string> arguments) => Run(arguments, Console.Out, Console.In, Console.Error);

    public static int Run(IReadOnlyList<string> arguments, TextWriter output, TextReader input, TextWriter error)
    {
        ChildSettings settings;
        try
        {
            settings = ChildSettings.Parse(arguments);
        }
        catch (Exception e) when (e is ArgumentException or FormatException or OverflowException)
        {
            error.WriteLine($"stress child: {e.Message} (its arguments are written by a stress campaign)");
            return UsageExitCode;
        }
        try
        {
            return ChildRunner.Run(settings, output, input, error);
        }
        catch (Exception e)
        {
            error.WriteLine($"stress child failed: {e}");
            error.Flush();
            return FailedExitCode;
        }
    }
}
