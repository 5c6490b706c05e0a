namespace Cairn.Cli;

internal static class Program
{
    // A stress campaign's child gets its arguments untouched: they are the campaign's, not the command line's.
    private static int Main(string[] args) => args is [Commands.StressCommand.ChildCommand, .. var rest]
        ? Stress.StressChild.Run(rest)
        : CairnCli.Run(args, CliContext.ForConsole());
}
