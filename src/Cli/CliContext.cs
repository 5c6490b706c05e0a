namespace Cairn.Cli;

/// <summary>
/// Where a command writes and how it behaves on this terminal: results to <see cref="Output"/>, messages and
/// progress to <see cref="Error"/> (so results can be piped), progress only after <see cref="ProgressDelay"/>.
/// Tests make one over string writers and a zero delay.
/// </summary>
internal sealed class CliContext(TextWriter output, TextWriter error, bool errorIsTerminal, TimeSpan progressDelay)
{
    /// <summary>Progress shows for work that has taken longer than this.</summary>
    public static readonly TimeSpan DefaultProgressDelay = TimeSpan.FromSeconds(1);

    public TextWriter Output { get; } = output;

    /// <summary>Written by the command and by the progress timer's thread, so synchronized.</summary>
    public TextWriter Error { get; } = TextWriter.Synchronized(error);

    /// <summary>Progress rewrites one line on a terminal; into a file or pipe it writes a line now and then.</summary>
    public bool ErrorIsTerminal { get; } = errorIsTerminal;

    public TimeSpan ProgressDelay { get; } = progressDelay;

    public static CliContext ForConsole()
        => new(Console.Out, Console.Error, errorIsTerminal: !Console.IsErrorRedirected, DefaultProgressDelay);
}
